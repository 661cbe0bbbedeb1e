/**
 * When the sessions are gathered: on a read once the last gathering is a cadence old (a view
 * opened after sitting idle sees sessions as they are), shared by everyone who asks at once,
 * never more than once per rate window. Members answer from canned cons/dump text: this is
 * about the collector's schedule, not ZooKeeper.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { RequestCounters } from '../../../src/members/counters.js';
import { SessionsCollector } from '../../../src/members/sessionsCollector.js';
import type { MemberTarget } from '../../../src/members/memberTargets.js';
import type { MemberTransport } from '../../../src/members/transport.js';
import type { WireResult } from '../../../src/members/wire.js';

const member: MemberTarget = { host: '127.0.0.1', clientPort: 2181, adminPort: null, address: '127.0.0.1:2181', id: 1, configuredRole: 'participant' };
const CONS = ' /10.0.0.1:5000[1](queued=0,recved=1,sent=1,sid=0xabc,lop=PING,est=1,to=30000,lresp=1000,llat=0,minlat=0,avglat=0,maxlat=0)\n';

function setup() {
  let now = 1_000_000;
  let asked = 0;
  const counters = new RequestCounters();
  const transport = {
    counters,
    deadlineMs: 2_000,
    async fourLetterWord(_m: unknown, word: string): Promise<WireResult> {
      asked++;
      // Answers take a moment, so concurrent readers overlap one gathering.
      await new Promise((r) => setTimeout(r, 5));
      return { ok: true, text: word === 'cons' ? CONS : 'SessionTracker dump:\n' };
    },
    async admin(): Promise<WireResult> {
      return { ok: false, kind: 'failed', message: 'none' };
    },
  } as unknown as MemberTransport;
  const collector = new SessionsCollector({
    ensemble: 'unit',
    members: { targets: () => [member], statuses: () => [] },
    transport,
    consoleSessionId: () => null,
    minIntervalMs: 10_000,
    cadenceMs: 60_000,
    log: pino({ level: 'silent' }),
    now: () => now,
  });
  return { collector, advance: (ms: number) => (now += ms), now: () => now, asked: () => asked };
}

describe('SessionsCollector', () => {
  it('answers from the last gathering while it is younger than the cadence, and says when a read gathers again', async () => {
    const { collector, advance } = setup();
    const first = await collector.get(false);
    expect(collector.gatherings).toBe(1);
    expect(first).toMatchObject({ nextGatherInSeconds: 60, gatherAllowedInSeconds: 10, cadenceSeconds: 60 });
    advance(30_000);
    const again = await collector.get(false);
    expect(collector.gatherings).toBe(1);
    expect(again.gatheredAt).toBe(first.gatheredAt);
    expect(again).toMatchObject({ nextGatherInSeconds: 30, gatherAllowedInSeconds: 0 });
  });

  it('gathers on a read once the data is a cadence old: N readers at once cost ONE gathering', async () => {
    const { collector, advance, now, asked } = setup();
    const first = await collector.get(false);
    advance(60_000);
    const before = asked();
    const answers = await Promise.all(Array.from({ length: 25 }, () => collector.get(false)));
    expect(collector.gatherings).toBe(2);
    // One cons and one dump for the one member, whatever the number of readers.
    expect(asked() - before).toBe(2);
    expect(new Set(answers.map((a) => a.gatheredAt))).toEqual(new Set([now()]));
    expect(answers[0]!.gatheredAt).toBeGreaterThan(first.gatheredAt!);
  });

  it('still never gathers twice within the rate window, whether asked to refresh or by the cadence', async () => {
    const { collector, advance } = setup();
    await collector.get(false);
    advance(5_000);
    await Promise.all([collector.get(true), collector.get(true), collector.get(false)]);
    expect(collector.gatherings).toBe(1);
    advance(5_000);
    await collector.get(true);
    expect(collector.gatherings).toBe(2);
  });

  it('counts the sessions of a recent gathering only', async () => {
    const { collector, advance } = setup();
    expect(collector.recentCount(60_000)).toBeNull();
    await collector.get(false);
    expect(collector.recentCount(60_000)).toBe(1);
    advance(61_000);
    expect(collector.recentCount(60_000)).toBeNull();
  });
});
