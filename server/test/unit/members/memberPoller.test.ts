/**
 * The poller's own rules, against members that never cooperate (real sockets, no
 * ZooKeeper behaviour imitated): one that accepts and never answers (hung) and one that
 * refuses (dead). Rounds must not overlap, dead members must be backed off, a throwing
 * subscriber must not stop the polling, and the states must say unreachable and down.
 * Timers and Date run on a virtual clock (support/virtualClock.ts), the sockets stay real: rounds
 * and tries are counted per virtual second, exactly, however loaded the machine (a 3 s wall-clock
 * budget counted 12 tries against 24 rounds at load ~10, where the cadence allows ~30 rounds).
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { MemberPoller } from '../../../src/members/memberPoller.js';
import { MemberTransport } from '../../../src/members/transport.js';
import { RequestCounters } from '../../../src/members/counters.js';
import type { MemberTarget } from '../../../src/members/memberTargets.js';
import { advanceVirtual, useVirtualClock } from '../support/virtualClock.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const target = (port: number): MemberTarget => ({
  host: '127.0.0.1',
  clientPort: port,
  adminPort: null,
  address: `127.0.0.1:${port}`,
  id: null,
  configuredRole: null,
});

describe('MemberPoller against members that never cooperate', () => {
  it('backs off, never overlaps rounds, survives a throwing subscriber, and says unreachable vs down', async () => {
    // The hung member: accepts, records when, never answers.
    const accepted: number[] = [];
    let open = 0;
    let maxOpen = 0;
    const sockets = new Set<net.Socket>();
    const hung = net.createServer((socket) => {
      accepted.push(Date.now());
      sockets.add(socket);
      open++;
      maxOpen = Math.max(maxOpen, open);
      socket.on('close', () => {
        open--;
        sockets.delete(socket);
      });
      socket.on('error', () => {});
      socket.resume(); // read (and drop) the word, so the client's close is seen
    });
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => hung.close(() => r()));
    });
    const hungPort = (hung.address() as net.AddressInfo).port;
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadPort = (dead.address() as net.AddressInfo).port;
    await new Promise((r) => dead.close(r));

    const counters = new RequestCounters();
    // Exchanges in flight with the hung member, counted where they start and end (its server sees a close late
    // when the machine is loaded, and would count an old socket beside the next round's).
    let inFlight = 0;
    let maxInFlight = 0;
    const transport = new MemberTransport(counters, 150);
    const fourLetterWord = transport.fourLetterWord.bind(transport);
    transport.fourLetterWord = async (member, word, purpose) => {
      if (member.clientPort !== hungPort) return fourLetterWord(member, word, purpose);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      try {
        return await fourLetterWord(member, word, purpose);
      } finally {
        inFlight--;
      }
    };
    useVirtualClock({ date: true });
    const poller = new MemberPoller({
      ensemble: 'hostile',
      targets: [target(hungPort), target(deadPort)],
      transport,
      intervalMs: 100,
      maxBackoffMs: 800,
      log: pino({ level: 'silent' }),
    });
    let published = 0;
    poller.subscribe(() => {
      published++;
      throw new Error('a broken subscriber');
    });
    poller.start();
    cleanups.push(() => poller.stop());
    await advanceVirtual(3_000);
    poller.stop();

    const health = poller.current()!;
    const byPort = (port: number) => health.members.find((m) => m.clientPort === port)!;
    expect(byPort(hungPort)).toMatchObject({ state: 'unreachable', lastServingAt: null, source: null });
    expect(byPort(deadPort)).toMatchObject({ state: 'down', detail: expect.stringContaining('connection refused') });
    expect(byPort(deadPort).nextPollAt).toBeGreaterThan(byPort(deadPort).polledAt);
    expect(health.alerts[0]).toMatchObject({ id: 'no-quorum', severity: 'critical' });

    // A throwing subscriber did not stop the rounds.
    expect(published).toBeGreaterThan(10);
    expect(poller.rounds).toBe(published);
    // Never more than one poll's two words to the hung member at once: rounds do not overlap.
    expect(maxInFlight).toBeGreaterThanOrEqual(1);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    expect(maxOpen).toBeGreaterThanOrEqual(1);
    // Back-off: far fewer tries than rounds, and the gaps between them grow toward the cap.
    const tries = [...new Set(accepted.map((t) => Math.round(t / 50)))].length;
    expect(tries).toBeLessThan(poller.rounds / 2);
    const deadTries = counters.snapshot()[`127.0.0.1:${deadPort}`]!.byPurpose.poll / 2;
    expect(deadTries).toBeLessThan(poller.rounds / 2);
    expect(deadTries).toBeGreaterThanOrEqual(3);
    // History: one point per member per round, not serving.
    const history = poller.history();
    expect(history[`127.0.0.1:${deadPort}`]).toHaveLength(poller.rounds);
    expect(history[`127.0.0.1:${deadPort}`]!.every((p) => !p.serving)).toBe(true);
  });
});

describe('MemberPoller cadence', () => {
  it('polls briskly while asked (an upgrade under way), never faster than 1 s, and at its own cadence after', async () => {
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadPort = (dead.address() as net.AddressInfo).port;
    await new Promise((r) => dead.close(r));
    useVirtualClock({ date: true });
    const poller = new MemberPoller({
      ensemble: 'brisk',
      targets: [target(deadPort)],
      transport: new MemberTransport(new RequestCounters(), 150),
      intervalMs: 5_000,
      log: pino({ level: 'silent' }),
    });
    poller.start();
    cleanups.push(() => poller.stop());
    const ready = poller.ready(2_000);
    await advanceVirtual(100);
    await ready;
    const before = poller.rounds;
    poller.setBrisk(1_000);
    expect(poller.intervalMs).toBe(1_000);
    await advanceVirtual(2_600);
    // At once, then about every second: three rounds where the configured cadence allows none.
    expect(poller.rounds - before).toBeGreaterThanOrEqual(3);
    expect(poller.current()!.pollIntervalMs).toBe(1_000);
    poller.setBrisk(100);
    expect(poller.intervalMs).toBe(1_000);
    poller.setBrisk(null);
    expect(poller.intervalMs).toBe(5_000);
    const after = poller.rounds;
    await advanceVirtual(2_000);
    expect(poller.rounds - after).toBeLessThanOrEqual(1);
  });
});
