/**
 * Fan-out over in-memory sockets (issue 25, items 3 and 8): one producer and one serialization
 * per event for every socket following the same thing, the same bytes written to all of them;
 * frames counted against a socket's budget and the hub's before they are sent; a socket that
 * stops reading holds at most its budget, and once it falls behind its events are dropped (not
 * queued as copies) until it drains and is told to resync.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TopicEvent } from '@keeper/shared';
import type { Identity } from '../../src/auth/identity.js';
import type { TopicProducer } from '../../src/topics/topicProducer.js';
import { childrenListEvents } from '../../src/topics/znodeProducer.js';
import { HubHarness, settle, until, type MemorySocket } from './support/hubHarness.js';
import { advanceVirtual, useVirtualClock } from './support/virtualClock.js';

const kindOf = (e: { event: unknown }) => (e.event as { kind?: string }).kind;

const viewer = (i: number): Identity => ({ name: 'viewer-token', role: 'viewer', via: 'cookie', signInId: `s${i}` });
const admin: Identity = { name: 'admin-token', role: 'admin', via: 'cookie', signInId: 'a' };
const subscribeA = { type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' } } as const;

let harness: HubHarness | null = null;
afterEach(() => {
  vi.useRealTimers();
  harness?.dispose();
  harness = null;
  vi.restoreAllMocks();
});

function hub(...args: ConstructorParameters<typeof HubHarness>): HubHarness {
  harness = new HubHarness(...args);
  return harness;
}

const diff = (i: number, bytes: number): TopicEvent<'znode'> => ({
  kind: 'children',
  mode: 'diff',
  added: [`c${i}-${'x'.repeat(bytes)}`],
  removed: [],
  total: i,
});

describe('fan-out', () => {
  it('opens one producer for every socket following the same znode, serializes each event once and writes the same bytes to all', async () => {
    // A virtual clock (support/virtualClock.ts): the 200 sockets' batches fall due together whatever the load, as
    // they do when the machine keeps up (a batch is built once per flush pass for every socket in it).
    useVirtualClock({ date: true });
    const h = hub();
    const sockets: MemorySocket[] = [];
    for (let i = 0; i < 200; i++) {
      const { socket } = h.connect(viewer(i), `person-${i}`);
      socket.deliver(subscribeA);
      sockets.push(socket);
    }
    await advanceVirtual(50);
    expect(sockets.every((s) => s.events().length === 1)).toBe(true);
    // One channel: the producer's listener is one, however many sockets (each joiner got the state from a replay).
    expect(h.topics.znode.live).toBe(1);
    expect(sockets.every((s) => s.events().length === 1)).toBe(true);

    const stringify = vi.spyOn(JSON, 'stringify');
    h.topics.znode.emit({ kind: 'watchEvent', event: 'dataChanged', at: 5 });
    h.topics.znode.emit({ kind: 'state', node: { exists: false }, at: 6 });
    await advanceVirtual(50);
    expect(sockets.every((s) => s.events().length === 3)).toBe(true);
    // Events or batches serialized: before, each of the 200 sockets serialized its own batch.
    const serialized = stringify.mock.calls.filter(([value]) => typeof value === 'object' && value !== null && ('kind' in value || 'events' in value));
    expect(serialized).toHaveLength(2);
    const lastFrames = new Set(sockets.map((s) => s.sent.at(-1)));
    expect(lastFrames.size).toBe(1);
    for (const s of sockets) {
      expect(s.events().slice(1).map(kindOf)).toEqual(['watchEvent', 'state']);
    }
  });

  it('never shares a channel between an admin and a viewer (a producer may tell them different things)', async () => {
    const h = hub();
    h.connect(admin).socket.deliver(subscribeA);
    h.connect(viewer(1)).socket.deliver(subscribeA);
    h.connect(viewer(2)).socket.deliver(subscribeA);
    await settle();
    expect(h.topics.znode.live).toBe(2);
  });

  it('closes the producer with the channel’s last member, and a later subscriber opens it again', async () => {
    const h = hub();
    const a = h.connect(viewer(1));
    const b = h.connect(viewer(2));
    a.socket.deliver(subscribeA);
    b.socket.deliver(subscribeA);
    a.socket.close(1000);
    expect(h.topics.znode.live).toBe(1);
    b.socket.deliver({ type: 'unsubscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' } });
    expect(h.topics.znode.live).toBe(0);
    const c = h.connect(viewer(3));
    c.socket.deliver(subscribeA);
    await until(() => c.socket.events().length === 1, 'the state');
    expect(h.topics.znode.live).toBe(1);
    expect(c.socket.events()).toHaveLength(1);
  });
});

describe('a socket that stops reading', () => {
  it('holds at most its budget, drops its events once behind instead of queueing copies, and is told to resync when it drains; readers get everything', async () => {
    // On a virtual clock from the start (support/virtualClock.ts): every socket's batches fall due at the same
    // virtual millisecond and leave in one flush pass, sharing one frame, and a diff comes every 2 ms, however late a
    // loaded machine runs the timers. On the wall clock, sockets whose first flush a loaded machine spread over
    // several milliseconds flushed in passes of their own, each building its own copy of the same batch (the ledger
    // held 114,176 bytes at load ~10).
    useVirtualClock({ date: true });
    const budget = 64 * 1024;
    const h = hub({ maxBufferedBytes: budget });
    const readers = Array.from({ length: 20 }, (_, i) => h.connect(viewer(i)));
    const stalled = Array.from({ length: 5 }, (_, i) => h.connect(viewer(100 + i)));
    for (const { socket } of [...readers, ...stalled]) socket.deliver(subscribeA);
    await advanceVirtual(50);
    expect([...readers, ...stalled].map(({ socket }) => socket.events().length)).toEqual([...readers, ...stalled].map(() => 1));
    for (const { socket } of stalled) socket.stopReading();

    let peakHeld = 0;
    for (let i = 1; i <= 40; i++) {
      h.topics.znode.emit(diff(i, 8_000));
      await advanceVirtual(2);
      for (const { connection } of stalled) peakHeld = Math.max(peakHeld, connection.bufferedBytes);
    }
    // Counted before sending: never past the budget (before, the check came after a frame was queued).
    expect(peakHeld).toBeLessThanOrEqual(budget);
    // Shared frames count once: the stalled sockets hold the same bytes.
    expect(h.ledger.total).toBeLessThanOrEqual(budget + 16 * 1024);
    await advanceVirtual(50);
    expect(readers.map(({ socket }) => socket.events().filter((e) => kindOf(e) === 'children').length)).toEqual(readers.map(() => 40));
    for (const { connection } of stalled) expect(connection.resyncs).toBe(1);
    expect(h.tooSlow).toBe(0);

    for (const { socket } of stalled) socket.read();
    await advanceVirtual(50);
    for (const { socket } of stalled) {
      expect(socket.received.filter((m) => m.type === 'resync')).toHaveLength(1);
      expect(socket.received.at(-1)).toMatchObject({ type: 'resync', reason: expect.stringMatching(/subscribe again/) });
    }
    // After the notice, events flow again.
    h.topics.znode.emit(diff(41, 10));
    await advanceVirtual(50);
    for (const { socket } of stalled) expect(socket.received.at(-1)).toMatchObject({ type: 'batch' });
  });

  it('300 sockets that never read, each sent a list of 100,000 names, hold one copy of it between them', async () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `worker-${String(i).padStart(8, '0')}-${'n'.repeat(36)}`);
    const events = childrenListEvents(names);
    const bigList: TopicProducer<'znode'> = {
      topic: 'znode',
      open({ emit }) {
        for (const event of events) emit(event);
        return () => {};
      },
    };
    const h = hub({}, { znode: bigList });
    const before = process.memoryUsage().arrayBuffers;
    const sockets: MemorySocket[] = [];
    for (let i = 0; i < 300; i++) {
      const { socket } = h.connect(viewer(i), `person-${i}`);
      socket.stopReading();
      socket.deliver(subscribeA);
      sockets.push(socket);
    }
    await until(() => sockets.every((s) => s.sent.length > 1), 'pages sent to every socket');
    await settle();
    const listBytes = names.reduce((n, name) => n + name.length + 3, 0);
    expect(listBytes).toBeGreaterThan(5_000_000);
    for (const c of h.connections) expect(c.bufferedBytes).toBeLessThanOrEqual(h.limits.maxBufferedBytes);
    // Every socket was handed the very same page buffers.
    const firstPages = new Set(sockets.map((s) => s.sent[1]));
    expect(firstPages.size).toBe(1);
    expect(h.ledger.total).toBeLessThan(listBytes * 1.1);
    // Before: each socket's first frame was its own 5.4 MB copy (300 of them: 1.6 GB).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('an event no socket could carry', () => {
  it('is refused with tooLarge, naming the subscription, and nothing is sent for it', async () => {
    const h = hub({ maxBufferedBytes: 16 * 1024 });
    const { socket } = h.connect(viewer(1));
    socket.deliver(subscribeA);
    await until(() => socket.events().length === 1, 'the state');
    h.topics.znode.emit(diff(1, 20_000));
    await until(() => socket.errors().length === 1, 'the refusal');
    await settle();
    expect(socket.events()).toHaveLength(1);
    expect(socket.errors()).toEqual([
      expect.objectContaining({
        code: 'tooLarge',
        subscription: { topic: 'znode', ensemble: 'prod', params: { path: '/a' } },
        message: expect.stringMatching(/more than the 16384/),
      }),
    ]);
  });
});
