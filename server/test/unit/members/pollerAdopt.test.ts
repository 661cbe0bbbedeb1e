/**
 * The poller of a replica that does not poll (sharedPolling): it shows another replica's rounds
 * as its own (targets, statuses, history, subscribers), keeps its own alerts beside the
 * published ones, says when the rounds are late, and leaves its own rounds alone while it polls.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { EMPTY_METRICS, summarizeQuorum, type EnsembleHealth, type MemberHistory, type MemberStatus } from '@keeper/shared';
import { MemberPoller } from '../../../src/members/memberPoller.js';
import { MemberTransport } from '../../../src/members/transport.js';
import { RequestCounters } from '../../../src/members/counters.js';

const T0 = 1_700_000_000_000;
type Alert = EnsembleHealth['alerts'][number];
const alert = (id: string, why: string): Alert => ({ id, severity: 'warning', title: id, why, action: 'look', members: [] });

function member(port: number, state: MemberStatus['state']): MemberStatus {
  return {
    id: port - 2180,
    host: '127.0.0.1',
    clientPort: port,
    adminPort: null,
    address: `127.0.0.1:${port}`,
    state,
    configuredRole: 'participant',
    detail: null,
    source: '4lw',
    metrics: EMPTY_METRICS,
    polledAt: T0,
    lastServingAt: T0,
  };
}

function published(polledAt: number): { health: EnsembleHealth; appended: MemberHistory } {
  const members = [member(2181, 'leader'), member(2182, 'follower')];
  const point = { at: polledAt, latencyAvg: 1, latencyMax: 2, outstanding: 0, connections: 3, znodeCount: 10, serving: true };
  return {
    health: {
      ensemble: 'as-named-there',
      polledAt,
      pollIntervalMs: 5_000,
      members,
      quorum: summarizeQuorum(members),
      alerts: [alert('request-herd', 'from the polling replica')],
      polledBy: 'keeper-a:8080',
    },
    appended: Object.fromEntries(members.map((m) => [m.address, [point]])),
  };
}

function poller(): MemberPoller {
  return new MemberPoller({
    ensemble: 'here',
    targets: [],
    transport: new MemberTransport(new RequestCounters(), 100),
    log: pino({ level: 'silent' }),
  });
}

describe("MemberPoller showing another replica's rounds", () => {
  it('takes their members as its targets and statuses, their points into its history, and tells its subscribers', async () => {
    const p = poller();
    const heard: EnsembleHealth[] = [];
    p.subscribe((health) => heard.push(health));
    p.addAlertSource(() => alert('upgrade-paused', 'paused here'));
    p.addAlertSource(() => alert('request-herd', 'computed here too'));
    const first = published(T0);
    p.adopt(first.health, first.appended);
    expect(await p.ready(10)).toBe(p.current());
    expect(p.targets().map((t) => [t.address, t.id])).toEqual([
      ['127.0.0.1:2181', 1],
      ['127.0.0.1:2182', 2],
    ]);
    expect(p.statuses().map((s) => s.state)).toEqual(['leader', 'follower']);
    // Under its own name, with the polling replica's time and name; a local alert joins, one of the same id does not twice.
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ ensemble: 'here', polledAt: T0, polledBy: 'keeper-a:8080' });
    expect(heard[0]!.alerts.map((a) => [a.id, a.why])).toEqual([
      ['request-herd', 'from the polling replica'],
      ['upgrade-paused', 'paused here'],
    ]);
    const next = published(T0 + 5_000);
    p.adopt(next.health, next.appended);
    expect(p.history()['127.0.0.1:2181']!.map((pt) => pt.at)).toEqual([T0, T0 + 5_000]);
    expect(p.adopted).toBe(2);
    expect(p.rounds).toBe(0);
  });

  it('says the shown round is late, once per reason, keeping its time; the next round is live again', () => {
    const p = poller();
    const heard: EnsembleHealth[] = [];
    p.subscribe((health) => heard.push(health));
    p.markLate('nothing shown yet');
    expect(heard).toHaveLength(0);
    const round = published(T0);
    p.adopt(round.health, round.appended);
    p.markLate('keeper-a:8080 has published nothing for 7 s');
    p.markLate('keeper-a:8080 has published nothing for 7 s');
    expect(heard.map((h) => h.lateReason)).toEqual([undefined, 'keeper-a:8080 has published nothing for 7 s']);
    expect(heard[1]!.polledAt).toBe(T0);
    const next = published(T0 + 5_000);
    p.adopt(next.health, next.appended);
    expect(p.current()?.lateReason).toBeUndefined();
  });

  it('seeds an empty history once, and shows nothing published while it polls itself', () => {
    const p = poller();
    const point = { at: T0 - 60_000, latencyAvg: 1, latencyMax: 1, outstanding: 0, connections: 1, znodeCount: 1, serving: true };
    p.seedHistory({ '127.0.0.1:2181': [point] });
    p.seedHistory({ '127.0.0.1:2181': [{ ...point, at: T0 - 30_000 }] });
    expect(p.history()['127.0.0.1:2181']!.map((pt) => pt.at)).toEqual([T0 - 60_000]);
    p.start();
    try {
      const round = published(T0);
      p.adopt(round.health, round.appended);
      expect(p.adopted).toBe(0);
      expect(p.current()?.polledBy).toBeUndefined();
    } finally {
      p.stop();
    }
  });

  it("shows a source's new alert at once, without a round, and only when it changed", () => {
    const p = poller();
    const heard: EnsembleHealth[] = [];
    p.subscribe((health) => heard.push(health));
    let paused: Alert | null = null;
    p.addAlertSource(() => paused);
    p.refreshAlerts();
    expect(heard).toHaveLength(0);
    const round = published(T0);
    p.adopt(round.health, round.appended);
    paused = alert('upgrade:u1', 'paused on member 2');
    p.refreshAlerts();
    p.refreshAlerts();
    expect(heard.map((h) => h.alerts.map((a) => a.id))).toEqual([['request-herd'], ['request-herd', 'upgrade:u1']]);
    // The same round: its time and members are not made newer by the alert.
    expect(heard[1]).toMatchObject({ polledAt: T0, members: round.health.members });
    paused = null;
    p.refreshAlerts();
    expect(p.current()?.alerts.map((a) => a.id)).toEqual(['request-herd']);
    expect(heard).toHaveLength(3);
  });
});
