/** The ensemble event timeline on the server: bounded by age and count, durable across a restart, keyed by the ensemble's members. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { computeAlerts, EMPTY_METRICS, summarizeQuorum, type EnsembleHealth, type MemberStatus } from '@keeper/shared';
import { EnsembleTimeline } from '../../../src/ensemble/eventTimeline.js';
import { ensembleStateKey } from '../../../src/ensemble/identityKey.js';

const log = pino({ level: 'silent' });
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
    const timeline = new EnsembleTimeline({ ensemble: 'e', stateKey: 'k', log, maxEvents: 10, now: () => now });
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
    const timeline = new EnsembleTimeline({ ensemble: 'e', stateKey: 'k', log, now: () => 3_000 });
    const seen: number[] = [];
    timeline.subscribe((events) => seen.push(...events.map((e) => e.seq)));
    timeline.observe(up(1_000));
    timeline.observe(oneDown(2_000));
    timeline.add([{ at: 2_500, kind: 'upgrade', text: 'rolling restart started (3 members)', severity: 'info', member: null, upgradeId: 'u' }]);
    expect(seen).toEqual(timeline.list().map((e) => e.seq));
    expect(timeline.list().map((e) => e.kind)).toEqual(['watching', 'member-down', 'alert-raised', 'upgrade']);
  });

  it('survives a restart in the state directory, keyed by the ensemble, and says what it did not see', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'keeper-events-'));
    dirs.push(stateDir);
    let now = 1_000;
    const first = new EnsembleTimeline({ ensemble: 'default', stateKey: 'abc', log, now: () => now });
    first.configure({ stateDir });
    first.observe(up(1_000));
    first.observe(oneDown(2_000));
    first.close();
    expect(readdirSync(join(stateDir, 'events'))).toEqual(['abc.json']);

    now = 62_000;
    const second = new EnsembleTimeline({ ensemble: 'default', stateKey: 'abc', log, now: () => now });
    second.configure({ stateDir });
    expect(second.list().map((e) => e.kind)).toEqual(['watching', 'member-down', 'alert-raised']);
    second.observe(up(62_000));
    const again = second.list().at(-1)!;
    expect(again).toMatchObject({ kind: 'watching', notWatchingSince: 2_000 });
    expect(again.text).toContain('last saved poll was 1 min 0 s earlier; changes in between are not known');
    // Numbering goes on from the kept events: a browser's "already seen" stays true.
    expect(second.list().map((e) => e.seq)).toEqual([1, 2, 3, 4]);

    // Another ensemble with the same name elsewhere does not read it.
    const other = new EnsembleTimeline({ ensemble: 'default', stateKey: 'xyz', log });
    other.configure({ stateDir });
    expect(other.list()).toEqual([]);
  });
});

describe('ensembleStateKey', () => {
  it('is the same for the same members in any order, and differs for other members or a chroot', () => {
    const a = ensembleStateKey({ connectionString: 'zk1:2181,zk2:2181,zk3:2181' });
    expect(ensembleStateKey({ connectionString: 'ZK3:2181,zk1,zk2:2181' })).toBe(a);
    expect(ensembleStateKey({ connectionString: 'zk1:2181,zk2:2181,zk4:2181' })).not.toBe(a);
    expect(ensembleStateKey({ connectionString: 'zk1:2181,zk2:2181,zk3:2181/app' })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{24}$/);
  });
});
