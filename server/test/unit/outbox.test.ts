import type { ServerEvent, TopicEvent } from '@keeper/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Outbox, type OutboxBounds, type OutboxSink } from '../../src/hub/outbox.js';
import { SharedEvent, envelopePrefix } from '../../src/hub/sharedEvent.js';
import { FlushScheduler } from '../../src/hub/flushScheduler.js';

const share = (e: ServerEvent): SharedEvent => SharedEvent.of(e, envelopePrefix(e.topic, e.ensemble, e.params));

/**
 * An outbox over a sink that takes everything (or only `room` events a flush, when set) and
 * records each flush's events as labels; `resyncs` counts the resync notices it was let send.
 */
function recording(intervalMs = 25, bounds?: OutboxBounds) {
  const flushes: string[][] = [];
  const state = { room: Number.POSITIVE_INFINITY, resyncs: 0, resyncAllowed: true };
  const sink: OutboxSink = {
    send(queue, from) {
      const end = Math.min(queue.length, from + state.room);
      flushes.push(queue.slice(from, end).map((e) => label(e.envelope)));
      return end;
    },
    resync() {
      if (!state.resyncAllowed) return false;
      state.resyncs++;
      return true;
    },
  };
  const box = new Outbox(sink, intervalMs, new FlushScheduler(), bounds);
  return {
    box,
    flushes,
    state,
    push: (e: ServerEvent) => box.push(share(e)),
  };
}

const onZnode = (path: string, event: TopicEvent<'znode'>, ensemble = 'e'): ServerEvent => ({ topic: 'znode', ensemble, params: { path }, event });
const znode = (path: string, version: number, ensemble = 'e'): ServerEvent =>
  onZnode(
    path,
    {
      kind: 'state',
      node: {
        exists: true,
        stat: {
          czxid: '0x1',
          mzxid: '0x2',
          pzxid: '0x1',
          ctime: 0,
          mtime: 0,
          version,
          cversion: 0,
          aversion: 0,
          ephemeralOwner: '0x0',
          dataLength: 0,
          numChildren: 0,
        },
        data: { encoding: 'utf8', value: `v${version}`, size: 2, truncated: false },
      },
      at: version,
    },
    ensemble,
  );
const gone = (path: string, ensemble = 'e'): ServerEvent => onZnode(path, { kind: 'state', node: { exists: false }, at: 0 }, ensemble);
const session = (state: 'connected' | 'disconnected', ensemble = 'e'): ServerEvent => ({
  topic: 'consoleSession',
  ensemble,
  params: {},
  event: {
    session: { state, sessionId: '0x1', member: null, since: 0, timeoutMs: 1, sessionsOpened: 1, confirmedAt: null, establishedAt: null, timeline: [] },
  },
});
const children = (path: string, names: string[]): ServerEvent => onZnode(path, { kind: 'children', mode: 'full', names, total: names.length });
const diff = (path: string, added: string[]): ServerEvent => onZnode(path, { kind: 'children', mode: 'diff', added, removed: [], total: added.length });
const watch = (path: string, event: 'created' | 'deleted' | 'dataChanged' | 'childrenChanged'): ServerEvent =>
  onZnode(path, { kind: 'watchEvent', event, at: 0 });
const health = (polledAt: number, ensemble = 'e'): ServerEvent => ({
  topic: 'ensembleHealth',
  ensemble,
  params: {},
  event: {
    kind: 'health',
    health: {
      ensemble,
      polledAt,
      pollIntervalMs: 5000,
      members: [],
      quorum: { voters: 1, votersServing: 1, observers: 0, observersServing: 0, quorumSize: 1, hasQuorum: true, tolerates: 0, canLoseNow: 0, sentence: '' },
      alerts: [],
    },
  },
});
const history = (mode: 'full' | 'append', member: string): ServerEvent => ({
  topic: 'ensembleHealth',
  ensemble: 'e',
  params: {},
  event: { kind: 'history', mode, history: { [member]: [] } },
});
const subError = (path: string): ServerEvent => onZnode(path, { kind: 'error', message: 'x', retrying: true });
const job = (id: string, done: number): ServerEvent => ({
  topic: 'jobs',
  ensemble: 'e',
  params: {},
  event: {
    job: {
      id,
      kind: 'recursiveDelete',
      ensemble: 'e',
      path: '/a',
      state: 'running',
      done,
      total: 10,
      current: null,
      startedBy: 'ann',
      startedAt: 0,
      cancelRequested: false,
    },
  },
});

/** A short label per event, so batches read as lists. */
function label(e: ServerEvent): string {
  switch (e.topic) {
    case 'znode': {
      const path = e.params.path;
      switch (e.event.kind) {
        case 'state':
          return `znode ${e.ensemble}${path} ${e.event.node.exists ? `v${e.event.node.stat.version}` : 'gone'}`;
        case 'children':
          return `children ${path} ${(e.event.mode === 'diff' ? e.event.added.map((n) => `+${n}`) : e.event.names).join(',')}`;
        case 'watchEvent':
          return `watch ${path} ${e.event.event}`;
        case 'error':
          return `error ${path}`;
      }
      break;
    }
    case 'consoleSession':
      return `session ${e.ensemble} ${e.event.session.state}`;
    case 'ensembleHealth':
      return e.event.kind === 'health'
        ? `health ${e.ensemble} ${e.event.health.polledAt}`
        : `history ${e.ensemble} ${e.event.mode} ${Object.keys(e.event.history).join(',')}`;
    case 'jobs':
      return `job ${e.event.job.id} ${e.event.job.done}`;
    case 'locks':
      return `locks ${e.ensemble} ${e.event.locks.locks.length}`;
    case 'lock':
      return `lock ${e.ensemble} ${e.params.path} ${e.event.kind}`;
    case 'upgrade':
      return `upgrade ${e.ensemble} ${e.event.upgrade?.state ?? 'none'}`;
    case 'reconfig':
      return `reconfig ${e.ensemble} ${e.event.reconfig?.state ?? 'none'}`;
    case 'ensembleEvents':
      return `events ${e.ensemble} ${e.event.mode} ${e.event.events.length}`;
  }
}

let batches: string[][];
let outbox: { push(e: ServerEvent): void; close(): void };
let closeOutbox: () => void;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  const r = recording();
  batches = r.flushes;
  outbox = { push: r.push, close: () => r.box.close() };
  closeOutbox = () => r.box.close();
});

afterEach(() => {
  closeOutbox();
  vi.useRealTimers();
});

describe('Outbox: timing', () => {
  it('sends the first event after a quiet spell on the next tick, not synchronously', () => {
    outbox.push(children('/a', ['x']));
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['children /a x']]);
  });

  it('lets a synchronous burst share one frame, in order', () => {
    outbox.push(children('/a', ['x']));
    outbox.push(children('/', ['a']));
    outbox.push(children('/b', ['x']));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['children /a x', 'children / a', 'children /b x']]);
  });

  it('batches events that arrive within intervalMs of the last flush and sends them at the interval', () => {
    outbox.push(children('/1', ['x']));
    vi.advanceTimersByTime(0);
    expect(batches).toHaveLength(1);

    vi.advanceTimersByTime(5);
    outbox.push(children('/2', ['x']));
    vi.advanceTimersByTime(0);
    expect(batches).toHaveLength(1); // not immediately: the outbox is busy
    vi.advanceTimersByTime(5);
    outbox.push(children('/3', ['x']));
    vi.advanceTimersByTime(14); // 24 ms after the first flush
    expect(batches).toHaveLength(1);
    vi.advanceTimersByTime(1); // 25 ms
    expect(batches).toEqual([['children /1 x'], ['children /2 x', 'children /3 x']]);
  });

  it('keeps batching at the interval while events keep coming', () => {
    const flushTimes: number[] = [];
    const start = Date.now();
    const timed = new Outbox(
      {
        send: (queue, from) => {
          flushTimes.push(Date.now() - start);
          return queue.length - from;
        },
        resync: () => true,
      },
      25,
    );
    for (let t = 0; t < 100; t += 5) {
      timed.push(share(children(`/${t}`, ['x'])));
      vi.advanceTimersByTime(5);
    }
    timed.close();
    expect(flushTimes[0]).toBe(0);
    for (let i = 1; i < flushTimes.length; i++) expect(flushTimes[i]! - flushTimes[i - 1]!).toBeGreaterThanOrEqual(25);
    expect(flushTimes.length).toBeGreaterThanOrEqual(4);
  });

  it('goes back to next-tick delivery after a quiet interval', () => {
    outbox.push(children('/1', ['x']));
    vi.advanceTimersByTime(0);
    vi.advanceTimersByTime(25);
    outbox.push(children('/2', ['x']));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['children /1 x'], ['children /2 x']]);
  });

  it('honours a custom interval', () => {
    const slow = recording(100);
    const got = slow.flushes;
    slow.push(children('/1', ['x']));
    vi.advanceTimersByTime(0);
    vi.advanceTimersByTime(1);
    slow.push(children('/2', ['x']));
    vi.advanceTimersByTime(98);
    expect(got).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(got).toEqual([['children /1 x'], ['children /2 x']]);
    slow.box.close();
  });

  it('holds a lone watch event for one interval: the new state it announces follows shortly', () => {
    outbox.push(watch('/a', 'dataChanged'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(25);
    expect(batches).toEqual([['watch /a dataChanged']]);
  });

  it('sends a watch event and the state that follows it together, at once', () => {
    outbox.push(watch('/a', 'dataChanged'));
    vi.advanceTimersByTime(1);
    outbox.push(children('/a', ['b']));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['watch /a dataChanged', 'children /a b']]);
    // Nothing left behind by the watch event's timer.
    vi.advanceTimersByTime(100);
    expect(batches).toHaveLength(1);
  });

  it('never flushes an empty batch', () => {
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([]);
  });
});

describe('Outbox: replacement', () => {
  it('replaces an unsent znode state for the same ensemble and path in place', () => {
    outbox.push(znode('/a', 1));
    outbox.push(children('/', ['a']));
    outbox.push(znode('/a', 2));
    outbox.push(znode('/b', 1));
    outbox.push(gone('/a'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['znode e/a gone', 'children / a', 'znode e/b v1']]);
  });

  it('replaces an unsent console session for the same ensemble in place', () => {
    outbox.push(session('connected'));
    outbox.push(watch('/a', 'created'));
    outbox.push(session('disconnected'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['session e disconnected', 'watch /a created']]);
  });

  it('keys by ensemble: the same path or session on another ensemble is a different key', () => {
    outbox.push(znode('/a', 1, 'e1'));
    outbox.push(znode('/a', 1, 'e2'));
    outbox.push(session('connected', 'e1'));
    outbox.push(session('connected', 'e2'));
    outbox.push(znode('/a', 2, 'e2'));
    outbox.push(session('disconnected', 'e1'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['znode e1/a v1', 'znode e2/a v2', 'session e1 disconnected', 'session e2 connected']]);
  });

  it('does not confuse a znode and a session key', () => {
    outbox.push(session('connected', 'e'));
    outbox.push(znode('/', 1, 'e'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['session e connected', 'znode e/ v1']]);
  });

  it('keeps every children list and diff, watch event and error of a znode, in order', () => {
    outbox.push(children('/', ['a']));
    outbox.push(watch('/a', 'dataChanged'));
    outbox.push(children('/', ['a', 'b']));
    outbox.push(diff('/', ['c']));
    outbox.push(watch('/a', 'dataChanged'));
    outbox.push(subError('/x'));
    outbox.push(subError('/x'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['children / a', 'watch /a dataChanged', 'children / a,b', 'children / +c', 'watch /a dataChanged', 'error /x', 'error /x']]);
  });

  it('replaces an unsent health per ensemble, but keeps every member history event', () => {
    outbox.push(health(1, 'e1'));
    outbox.push(history('full', 'm1'));
    outbox.push(health(1, 'e2'));
    outbox.push(history('append', 'm2'));
    outbox.push(health(2, 'e1'));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['health e1 2', 'history e full m1', 'health e2 1', 'history e append m2']]);
  });

  it('keeps only the latest unsent progress of each job', () => {
    outbox.push(job('j1', 1));
    outbox.push(job('j2', 1));
    outbox.push(job('j1', 2));
    outbox.push(job('j1', 3));
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([['job j1 3', 'job j2 1']]);
  });

  it('only replaces events not yet sent', () => {
    outbox.push(znode('/a', 1));
    vi.advanceTimersByTime(0);
    outbox.push(znode('/a', 2));
    outbox.push(znode('/a', 3));
    vi.advanceTimersByTime(25);
    expect(batches).toEqual([['znode e/a v1'], ['znode e/a v3']]);
  });

  it('replacement indices stay right after a flush (no stale index from the previous batch)', () => {
    outbox.push(watch('/w', 'created'));
    outbox.push(znode('/a', 1)); // index 1 in the first batch
    vi.advanceTimersByTime(0);
    outbox.push(znode('/a', 2)); // index 0 in the second batch
    outbox.push(watch('/w', 'deleted'));
    outbox.push(znode('/a', 3));
    vi.advanceTimersByTime(25);
    expect(batches).toEqual([
      ['watch /w created', 'znode e/a v1'],
      ['znode e/a v3', 'watch /w deleted'],
    ]);
  });
});

describe('Outbox: close', () => {
  it('forgets what was pending and sends nothing pushed after close', () => {
    outbox.push(watch('/old', 'created'));
    outbox.push(znode('/a', 1));
    outbox.close();
    outbox.push(watch('/new', 'created'));
    outbox.push(znode('/a', 2));
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops pending events waiting for the next tick', () => {
    outbox.push(watch('/a', 'created'));
    outbox.close();
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([]);
  });

  it('drops pending events waiting for the interval', () => {
    outbox.push(children('/a', ['x']));
    vi.advanceTimersByTime(0);
    outbox.push(watch('/b', 'created'));
    outbox.push(znode('/c', 1));
    outbox.close();
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([['children /a x']]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('Outbox: a socket that falls behind', () => {
  const page = (offset: number, names: string[], last: boolean): ServerEvent =>
    onZnode('/big', { kind: 'children', mode: 'page', names, total: 1_000, offset, last });

  it('keeps what the socket has no room for, in order, and sends it when woken: nothing is dropped or copied', () => {
    const r = recording();
    r.state.room = 2;
    for (let i = 1; i <= 5; i++) r.push(watch(`/${i}`, 'created'));
    r.push(znode('/a', 1));
    vi.advanceTimersByTime(25);
    expect(r.flushes).toEqual([['watch /1 created', 'watch /2 created']]);
    // A newer state still replaces the waiting one in place.
    r.push(znode('/a', 2));
    vi.advanceTimersByTime(1_000);
    expect(r.flushes).toHaveLength(1);
    r.box.wake();
    vi.advanceTimersByTime(0);
    r.box.wake();
    vi.advanceTimersByTime(0);
    expect(r.flushes.flat()).toEqual(['watch /1 created', 'watch /2 created', 'watch /3 created', 'watch /4 created', 'watch /5 created', 'znode e/a v2']);
    r.box.close();
  });

  it('past its bound, drops what was queued and everything after, until it can be told to resync', () => {
    const r = recording(25, { maxQueuedBytes: 2_000, maxQueuedEvents: 1_000 });
    r.state.room = 0;
    r.state.resyncAllowed = false;
    r.push(znode('/a', 1));
    vi.advanceTimersByTime(0);
    expect(r.box.isBehind).toBe(false);
    for (let i = 0; i < 10; i++) r.push(diff('/', [`child-${i}-${'x'.repeat(300)}`]));
    expect(r.box.isBehind).toBe(true);
    expect(r.box.length).toBe(0);
    r.push(znode('/a', 2));
    expect(r.box.length).toBe(0);
    // The socket drains: the notice goes first, then events flow again.
    r.state.room = Number.POSITIVE_INFINITY;
    r.state.resyncAllowed = true;
    r.box.wake();
    vi.advanceTimersByTime(0);
    expect(r.state.resyncs).toBe(1);
    expect(r.box.isBehind).toBe(false);
    r.push(znode('/a', 3));
    vi.advanceTimersByTime(25);
    expect(r.flushes.flat()).toEqual(['znode e/a v3']);
    expect(r.box.dropped).toBe(1);
    r.box.close();
  });

  it('lets the pages of a child list wait without counting against the bound (the producer keeps them anyway)', () => {
    const r = recording(25, { maxQueuedBytes: 2_000, maxQueuedEvents: 1_000 });
    r.state.room = 1;
    const names = Array.from({ length: 100 }, (_, i) => `name-${i}-${'y'.repeat(40)}`);
    for (let p = 0; p < 10; p++) r.push(page(p * 100, names, p === 9));
    vi.advanceTimersByTime(0);
    expect(r.box.isBehind).toBe(false);
    for (let i = 0; i < 9; i++) {
      r.box.wake();
      vi.advanceTimersByTime(0);
    }
    expect(r.flushes).toHaveLength(10);
    r.box.close();
  });

  it('falls behind past its bound on the number of events, however small', () => {
    const r = recording(25, { maxQueuedBytes: 1e9, maxQueuedEvents: 50 });
    r.state.room = 0;
    for (let i = 0; i < 51; i++) r.push(watch(`/${i}`, 'created'));
    expect(r.box.isBehind).toBe(true);
    r.box.close();
  });
});
