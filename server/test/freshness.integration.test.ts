/**
 * Truth first, on a real 3-member ensemble with a real kazoo client writing every 0.5 s: the
 * console says its session is unconfirmed within 3 s of its member freezing (long before the
 * client library gives up on the member at 2/3 of the session timeout), with an "as of" time no
 * later than the first write it missed; and losing quorum never moves "as of" forward.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { ZkGateway } from '../src/zk/gateway.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { RecordingListener } from './support/recordingListener.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { KazooWriter } from '../../scripts/lib/kazoo/index.js';

/** Long enough that the library's own move off a hung member (2/3 of it, 10 s) comes well after 3 s. */
const SESSION_TIMEOUT_MS = 15_000;
const STALENESS_BOUND_MS = 3_000;

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let gateway: ZkGateway;
/** Every snapshot the gateway published, with the time it did. */
const published: { at: number; snapshot: ConsoleSessionSnapshot }[] = [];

function memberId(member: string | null): number {
  const port = Number(member?.split(':')[1]);
  const found = ensemble.members.find((m) => m.clientPort === port);
  if (!found) throw new Error(`console is not on a sandbox member (${member})`);
  return found.id;
}

function hostsExcept(id: number): string {
  return ensemble.members
    .filter((m) => m.id !== id)
    .map((m) => `${m.host}:${m.clientPort}`)
    .join(',');
}

/** Every value the listener was given, in order. */
function valuesSeen(listener: RecordingListener): number[] {
  // The node starts empty (kazoo's ensure_path) before the writer's first value.
  return listener.nodes.flatMap((n) => {
    const match = n.exists ? /"counter":\s*(\d+)/.exec(n.data.value) : null;
    return match ? [Number(match[1])] : [];
  });
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.freshnessTest);
  gateway = new ZkGateway({
    name: 'fresh',
    connectionString: ensemble.connectionString,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    requestDeadlineMs: 5_000,
    logger: testLogger,
  });
  gateway.on('session', (snapshot) => published.push({ at: Date.now(), snapshot }));
  gateway.start();
  await waitFor(() => gateway.session.state === 'connected', { what: 'console session connected', timeoutMs: 30_000 });
}, 90_000);

afterAll(async () => {
  gateway?.close();
  await ensemble?.dispose();
}, 60_000);

describe('a frozen member (SIGSTOP) while kazoo writes through the others', () => {
  it('is reported unconfirmed within 3 s, as of no later than the first write the console missed, then live again on another member', async () => {
    // A fresh session is judged from its handshake, never from "no answer yet".
    expect(published.filter((p) => p.snapshot.state === 'unconfirmed')).toEqual([]);
    const listener = new RecordingListener();
    const stopWatch = gateway.watches.watch('/fresh/counter', listener);
    const frozen = memberId(gateway.session.member);
    const sessionId = gateway.session.sessionId;
    const writer = new KazooWriter(hostsExcept(frozen), '/fresh/counter', { intervalMs: 500 });
    try {
      await writer.started();
      // Live first: the console follows kazoo's writes.
      await waitFor(() => valuesSeen(listener).some((v) => v >= 3), { what: 'three writes seen live', timeoutMs: 15_000 });

      const frozenAt = Date.now();
      ensemble.pauseMember(frozen);
      const unconfirmed = await waitFor(() => published.find((p) => p.at >= frozenAt && p.snapshot.state === 'unconfirmed') ?? null, {
        what: 'session unconfirmed',
        timeoutMs: SESSION_TIMEOUT_MS,
      });
      // The window before recovery: flagged within the bound, on the frozen member, same session.
      expect(unconfirmed.at - frozenAt).toBeLessThanOrEqual(STALENESS_BOUND_MS);
      expect(memberId(unconfirmed.snapshot.member)).toBe(frozen);
      expect(unconfirmed.snapshot.sessionId).toBe(sessionId);
      const asOf = unconfirmed.snapshot.confirmedAt!;
      expect(asOf).toBeLessThanOrEqual(frozenAt);
      expect(frozenAt - asOf).toBeLessThan(STALENESS_BOUND_MS); // it was being confirmed right up to the freeze
      const lastShown = Math.max(...valuesSeen(listener));
      const firstMissed = await waitFor(() => writer.firstAckAfter(lastShown) ?? null, { what: 'a write the frozen console cannot see', timeoutMs: 5_000 });
      expect(asOf).toBeLessThanOrEqual(firstMissed.at);
      // Nothing claims "connected" again while the member stays frozen on the same member.
      expect(published.filter((p) => p.at > unconfirmed.at && p.snapshot.state === 'connected' && memberId(p.snapshot.member) === frozen)).toEqual([]);

      // The library moves to another member at 2/3 of the timeout: live again, same session, and the writes it missed arrive.
      await waitFor(() => gateway.session.state === 'connected' && memberId(gateway.session.member) !== frozen, {
        what: 'moved to another member',
        timeoutMs: SESSION_TIMEOUT_MS,
      });
      expect(gateway.session.sessionId).toBe(sessionId);
      expect(gateway.session.confirmedAt!).toBeGreaterThan(asOf);
      const newest = writer.acks.at(-1)!.value;
      await waitFor(() => valuesSeen(listener).some((v) => v >= newest), { what: 'caught up with kazoo', timeoutMs: 5_000 });
    } finally {
      ensemble.resumeMember(frozen);
      await writer.stop();
      stopWatch();
    }
  }, 90_000);

  it('a member that answers again clears the mark at once', async () => {
    await waitFor(() => gateway.session.state === 'connected', { what: 'connected', timeoutMs: 20_000 });
    const member = memberId(gateway.session.member);
    const frozenAt = Date.now();
    ensemble.pauseMember(member);
    let resumedAt = 0;
    try {
      await waitFor(() => gateway.session.state === 'unconfirmed', { what: 'unconfirmed', timeoutMs: STALENESS_BOUND_MS + 1_000 });
      expect(Date.now() - frozenAt).toBeLessThanOrEqual(STALENESS_BOUND_MS + 100);
    } finally {
      ensemble.resumeMember(member);
      resumedAt = Date.now();
    }
    await waitFor(() => gateway.session.state === 'connected', { what: 'confirmed again', timeoutMs: 2_000 });
    expect(Date.now() - resumedAt).toBeLessThan(1_000);
    expect(memberId(gateway.session.member)).toBe(member); // no move was needed
  }, 60_000);
});

describe('losing quorum', () => {
  it('says so within 3 s of the last answer, and "as of" never moves while the states change', async () => {
    await waitFor(() => gateway.session.state === 'connected', { what: 'connected', timeoutMs: 20_000 });
    const consoleMember = memberId(gateway.session.member);
    const others = ensemble.members.map((m) => m.id).filter((id) => id !== consoleMember);
    const lostAt = Date.now();
    for (const id of others) await ensemble.killMember(id);
    try {
      const notLive = await waitFor(() => published.find((p) => p.at >= lostAt && p.snapshot.state !== 'connected') ?? null, {
        what: 'session not live',
        timeoutMs: 20_000,
      });
      const asOf = notLive.snapshot.confirmedAt!;
      expect(notLive.at - asOf).toBeLessThanOrEqual(STALENESS_BOUND_MS);
      // Let it cycle through disconnected and connecting (refused, unanswered handshakes) for a while.
      await new Promise((r) => setTimeout(r, 8_000));
      const during = published.filter((p) => p.at >= notLive.at);
      for (const p of during) expect(p.snapshot.confirmedAt, `${p.snapshot.state} at ${p.at}`).toBe(asOf);
      expect(gateway.session.confirmedAt).toBe(asOf);
    } finally {
      for (const id of others) await ensemble.startMember(id);
    }
    await waitFor(() => gateway.session.state === 'connected', { what: 'connected after quorum returns', timeoutMs: 40_000 });
    expect(gateway.session.confirmedAt!).toBeGreaterThan(lostAt);
  }, 120_000);
});

describe('cost', () => {
  it('probes an idle session about once a second, never more', async () => {
    await waitFor(() => gateway.session.state === 'connected', { what: 'connected', timeoutMs: 20_000 });
    const before = gateway.probesSent;
    await new Promise((r) => setTimeout(r, 5_000));
    const sent = gateway.probesSent - before;
    expect(sent).toBeGreaterThanOrEqual(3);
    expect(sent).toBeLessThanOrEqual(6);
  }, 30_000);
});
