/** The ensemble event timeline on the server: bounded by age and count, durable across a restart, keyed by the ensemble's identity (the `/keeper/ensemble-id` marker). */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { computeAlerts, EMPTY_METRICS, summarizeQuorum, type EnsembleHealth, type MemberStatus } from '@keeper/shared';
import { EnsembleTimeline, EVENTS_FILE } from '../../../src/ensemble/eventTimeline.js';
import { ensembleStateDir } from '../../../src/config/ensembleState.js';

const log = pino({ level: 'silent' });
const known = (id: string) => ({ whenKnown: () => Promise.resolve(id) });
/** The identity's promise and the read after it. */
const settled = () => new Promise((resolve) => setImmediate(resolve));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function member(id: number, state: MemberStatus['state'], epoch = 1): MemberStatus {
  return {
    id,
    host: '127.0.0.1',
    clientPort: 2190 + id,
    adminPort: null,
    address: `127.0.0.1:${2190 + id}`,
    state,
    configuredRole: 'participant',
    detail: state === 'down' ? 'connection refused' : null,
    source: state === 'down' ? null : '4lw',
    metrics: { ...EMPTY_METRICS, epoch: state === 'down' ? null : epoch, syncedFollowers: state === 'leader' ? 2 : null },
    polledAt: 0,
    lastServingAt: 0,
  };
}

function health(members: MemberStatus[], polledAt: number): EnsembleHealth {
  const quorum = summarizeQuorum(members);
  return { ensemble: 'e', polledAt, pollIntervalMs: 1_000, members, quorum, alerts: computeAlerts({ members, quorum, blocked: new Map(), lag: [] }) };
}

const up = (t: number) => health([member(1, 'follower'), member(2, 'follower'), member(3, 'leader')], t);
const oneDown = (t: number) => health([member(1, 'follower'), member(2, 'down'), member(3, 'leader')], t);

describe('EnsembleTimeline', () => {
  it('keeps at most maxEvents and nothing older than 24 h', () => {
    let now = 0;
    const timeline = new EnsembleTimeline({ ensemble: 'e', identity: known('unused'), log, maxEvents: 10, now: () => now });
    for (let i = 0; i < 20; i++) {
      now = i * 1_000;
      timeline.observe(i % 2 === 0 ? up(now) : oneDown(now));
    }
    const kept = timeline.list();
    expect(kept).toHaveLength(10);
    expect(kept.at(-1)!.seq).toBeGreaterThan(kept[0]!.seq);
    now = 25 * 3600_000;
    expect(timeline.list()).toEqual([]);
  });

  it('tells subscribers each new event, numbered', () => {
    const timeline = new EnsembleTimeline({ ensemble: 'e', identity: known('unused'), log, now: () => 3_000 });
    const seen: number[] = [];
    timeline.subscribe(({ events }) => seen.push(...events.map((e) => e.seq)));
    timeline.observe(up(1_000));
    timeline.observe(oneDown(2_000));
    timeline.add([{ at: 2_500, kind: 'upgrade', text: 'rolling restart started (3 members)', severity: 'info', member: null, upgradeId: 'u' }]);
    expect(seen).toEqual(timeline.list().map((e) => e.seq));
    expect(timeline.list().map((e) => e.kind)).toEqual(['watching', 'member-down', 'alert-raised', 'upgrade']);
  });

  it("survives a restart in the directory of the ensemble's identity, and says what it did not see", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'keeper-events-'));
    dirs.push(stateDir);
    let now = 1_000;
    const first = new EnsembleTimeline({ ensemble: 'default', identity: known('ensemble-abc'), log, now: () => now });
    first.configure({ stateDir });
    first.start();
    await settled();
    first.observe(up(1_000));
    first.observe(oneDown(2_000));
    first.close();
    expect(readdirSync(ensembleStateDir(stateDir, 'ensemble-abc'))).toEqual([EVENTS_FILE]);

    now = 62_000;
    const second = new EnsembleTimeline({ ensemble: 'default', identity: known('ensemble-abc'), log, now: () => now });
    second.configure({ stateDir });
    second.start();
    await settled();
    expect(second.list().map((e) => e.kind)).toEqual(['watching', 'member-down', 'alert-raised']);
    second.observe(up(62_000));
    const again = second.list().at(-1)!;
    expect(again).toMatchObject({ kind: 'watching', notWatchingSince: 2_000 });
    expect(again.text).toContain('last saved poll was 1 min 0 s earlier; changes in between are not known');
    // Numbering goes on from the kept events: a browser's "already seen" stays true.
    expect(second.list().map((e) => e.seq)).toEqual([1, 2, 3, 4]);

    // Another ensemble with the same name (another identity) does not read it.
    const other = new EnsembleTimeline({ ensemble: 'default', identity: known('ensemble-xyz'), log });
    other.configure({ stateDir });
    other.start();
    await settled();
    expect(other.list()).toEqual([]);
  });

  it('observes before the identity is known, then puts the kept events first and tells subscribers the whole again', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'keeper-events-'));
    dirs.push(stateDir);
    let now = 1_000;
    const first = new EnsembleTimeline({ ensemble: 'default', identity: known('ensemble-abc'), log, now: () => now });
    first.configure({ stateDir });
    first.start();
    await settled();
    first.observe(up(1_000));
    first.close();

    now = 31_000;
    let tell: (id: string) => void = () => undefined;
    const late = new Promise<string>((resolve) => (tell = resolve));
    const second = new EnsembleTimeline({ ensemble: 'default', identity: { whenKnown: () => late }, log, now: () => now });
    const changes: { mode: string; seqs: number[] }[] = [];
    second.subscribe(({ mode, events }) => changes.push({ mode, seqs: events.map((e) => e.seq) }));
    second.configure({ stateDir });
    second.start();
    // No quorum yet, say: the members are polled all the same, and the outage is narrated.
    second.observe(oneDown(30_000));
    expect(second.list().map((e) => e.kind)).toEqual(['watching', 'alert-raised']);
    expect(second.list()[0]!.notWatchingSince).toBeNull();

    tell('ensemble-abc');
    await settled();
    const all = second.list();
    expect(all.map((e) => e.kind)).toEqual(['watching', 'watching', 'alert-raised']);
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(all[1]).toMatchObject({ notWatchingSince: 1_000, at: 30_000 });
    expect(all[1]!.text).toContain('last saved poll was 29 s earlier');
    expect(changes.at(-1)).toEqual({ mode: 'full', seqs: [1, 2, 3] });
    second.observe(up(32_000));
    expect(changes.at(-1)!.mode).toBe('append');
    expect(changes.at(-1)!.seqs[0]).toBe(4);
    second.close();
  });

  it('never reads or writes a file once closed before the identity is known', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'keeper-events-'));
    dirs.push(stateDir);
    let tell: (id: string) => void = () => undefined;
    const late = new Promise<string>((resolve) => (tell = resolve));
    const timeline = new EnsembleTimeline({ ensemble: 'default', identity: { whenKnown: () => late }, log });
    timeline.configure({ stateDir });
    timeline.start();
    timeline.observe(up(1_000));
    timeline.close();
    tell('ensemble-abc');
    await settled();
    expect(readdirSync(stateDir)).toEqual([]);
  });
});
