import { describe, expect, it, vi } from 'vitest';
import { CLOSE_ACCESS_ENDED, CLOSE_PROTOCOL_MISMATCH, CLOSE_TOO_MANY_SOCKETS, PROTOCOL_VERSION, type ClientMessage } from '@keeper/shared';
import {
  RATE_RETRY_JITTER_MS,
  RELEASE_GRACE_MS,
  RESYNC_REASON,
  SocketClient,
  TOO_MANY_TABS_RETRY_MS,
  type SocketEnv,
  type SocketHandlers,
  type SocketLike,
} from './SocketClient';
import type { ConnectionStatus } from './connectionStatus';
import type { SubscriptionTarget } from './subscriptionRegistry';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: ClientMessage[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  send(data: string): void {
    this.sent.push(JSON.parse(data) as ClientMessage);
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(message: unknown): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(code = 1006, reason = ''): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

/** A manual clock: timers fire only when the test advances time. */
function harness(visible = true) {
  let now = 1_000;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const sockets: FakeSocket[] = [];
  const statuses: ConnectionStatus[] = [];
  const released: string[] = [];
  const welcomes: number[] = [];
  const errors: { code: string; target: SubscriptionTarget | null }[] = [];
  const env: SocketEnv = {
    createSocket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    now: () => now,
    random: () => 0.5,
    isVisible: () => visible,
    onWakeUp: () => () => {},
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (id) => {
      timers = timers.filter((t) => t.id !== id);
    },
  };
  const handlers: SocketHandlers = {
    onStatus: (s) => statuses.push(s),
    onWelcome: (_m, epoch) => welcomes.push(epoch),
    onBatch: () => {},
    onError: (m, target) => errors.push({ code: m.code, target }),
    onReleased: (t) => released.push(t.topic === 'znode' ? `${t.ensemble}:${(t.params as { path: string }).path}` : `${t.ensemble}:${t.topic}`),
  };
  const client = new SocketClient('ws://test/ws', env, handlers);
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = Math.max(now, due.at);
      due.fn();
    }
    now = until;
  };
  const last = () => sockets[sockets.length - 1]!;
  const welcome = () => last().receive({ type: 'welcome', protocolVersion: PROTOCOL_VERSION, serverVersion: 't', ensembles: [] });
  /** Time passes with no timer firing: a hidden tab's throttled timers fire late. */
  const jump = (ms: number) => {
    now += ms;
  };
  const clock = () => now;
  return { client, sockets, statuses, released, welcomes, errors, advance, jump, clock, last, welcome };
}

describe('SocketClient', () => {
  it('says hello first and goes live on welcome', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    expect(h.last().sent).toEqual([{ type: 'hello', protocolVersion: PROTOCOL_VERSION }]);
    h.welcome();
    expect(h.client.getStatus().phase).toBe('live');
    expect(h.welcomes).toEqual([1]);
  });

  it('sends one subscribe for two holders and unsubscribes after the last release and a grace period', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.welcome();
    const a = h.client.subscribe('znode', 'prod', { path: '/x' });
    const b = h.client.subscribe('znode', 'prod', { path: '/x' });
    expect(h.last().sent.filter((m) => m.type === 'subscribe')).toHaveLength(1);
    a();
    a(); // idempotent
    b();
    expect(h.last().sent.filter((m) => m.type === 'unsubscribe')).toHaveLength(0);
    h.advance(RELEASE_GRACE_MS + 1);
    expect(h.last().sent.filter((m) => m.type === 'unsubscribe')).toEqual([{ type: 'unsubscribe', topic: 'znode', ensemble: 'prod', params: { path: '/x' } }]);
    expect(h.released).toEqual(['prod:/x']);
  });

  it('re-acquiring during the grace period costs nothing on the wire', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.welcome();
    h.client.subscribe('znode', 'prod', { path: '/x' })();
    h.client.subscribe('znode', 'prod', { path: '/x' });
    h.advance(RELEASE_GRACE_MS * 2);
    const kinds = h
      .last()
      .sent.map((m) => m.type)
      .filter((t) => t !== 'ping');
    expect(kinds).toEqual(['hello', 'subscribe']);
    expect(h.released).toEqual([]);
  });

  it('subscribes made before welcome are sent after it, and again after a reconnect', () => {
    const h = harness();
    h.client.subscribe('znode', 'prod', { path: '/a' });
    h.client.start();
    h.advance(0);
    h.last().open();
    expect(h.last().sent.map((m) => m.type)).toEqual(['hello']);
    h.welcome();
    expect(h.last().sent.map((m) => m.type)).toEqual(['hello', 'subscribe']);

    h.last().drop();
    const waiting = h.client.getStatus();
    expect(waiting.phase).toBe('waiting');
    expect(waiting.lostAt).not.toBeNull();
    expect(waiting.retryAt! - waiting.since).toBe(500);
    h.advance(500);
    expect(h.sockets).toHaveLength(2);
    h.last().open();
    h.welcome();
    expect(h.last().sent).toMatchObject([{ type: 'hello' }, { type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' } }]);
    expect(h.welcomes).toEqual([1, 2]);
  });

  it('backs off to 2 s while visible and much longer while hidden', () => {
    const visible = harness(true);
    visible.client.start();
    visible.advance(0);
    for (let i = 0; i < 5; i++) {
      visible.last().drop();
      const s = visible.client.getStatus();
      visible.advance(s.retryAt! - s.since);
    }
    const s = visible.client.getStatus();
    expect(s.phase).toBe('connecting');
    visible.last().drop();
    const after = visible.client.getStatus();
    expect(after.retryAt! - after.since).toBe(2000);

    const hidden = harness(false);
    hidden.client.start();
    hidden.advance(0);
    for (let i = 0; i < 8; i++) {
      hidden.last().drop();
      const st = hidden.client.getStatus();
      hidden.advance(st.retryAt! - st.since);
    }
    hidden.last().drop();
    const h2 = hidden.client.getStatus();
    expect(h2.retryAt! - h2.since).toBeGreaterThan(10_000);
  });

  it('stops retrying on a protocol mismatch', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.last().drop(CLOSE_PROTOCOL_MISMATCH, 'want 2');
    expect(h.client.getStatus().phase).toBe('fatal');
    h.advance(60_000);
    expect(h.sockets).toHaveLength(1);
  });

  it("stops for good when access ends (4003), with the server's reason", () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.welcome();
    h.last().drop(CLOSE_ACCESS_ENDED, 'share link revoked');
    const s = h.client.getStatus();
    expect(s.phase).toBe('ended');
    expect(s.fatalReason).toBe('share link revoked');
    h.advance(10 * 60_000);
    expect(h.sockets).toHaveLength(1);
    h.client.reconnectNow();
    expect(h.sockets).toHaveLength(1);
  });

  it('releases pending subscriptions when the socket drops', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.welcome();
    h.client.subscribe('znode', 'prod', { path: '/gone' })();
    h.last().drop();
    expect(h.released).toEqual(['prod:/gone']);
    h.advance(500);
    h.last().open();
    h.welcome();
    expect(h.last().sent.map((m) => m.type)).toEqual(['hello']);
  });

  it('follows a topic without parameters (ensemble health) the same way, re-sent after a reconnect', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.welcome();
    const release = h.client.subscribe('ensembleHealth', 'prod', {});
    expect(h.last().sent.at(-1)).toMatchObject({ type: 'subscribe', topic: 'ensembleHealth', ensemble: 'prod', params: {} });
    h.last().drop();
    h.advance(500);
    h.last().open();
    h.welcome();
    expect(h.last().sent.at(-1)).toMatchObject({ type: 'subscribe', topic: 'ensembleHealth', ensemble: 'prod', params: {} });
    release();
    h.advance(RELEASE_GRACE_MS + 1);
    expect(
      h
        .last()
        .sent.filter((m) => m.type !== 'ping')
        .at(-1),
    ).toEqual({ type: 'unsubscribe', topic: 'ensembleHealth', ensemble: 'prod', params: {} });
    expect(h.released).toEqual(['prod:ensembleHealth']);
  });

  it('hands a refusal of a subscribe to its handler with the subscription it answers', () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.welcome();
    h.client.subscribe('jobs', 'prod', {});
    const sent = h.last().sent.at(-1);
    expect(sent).toMatchObject({ type: 'subscribe', topic: 'jobs' });
    const id = sent?.type === 'subscribe' ? sent.id : undefined;
    h.last().receive({ type: 'error', code: 'forbidden', message: 'only admins may follow jobs', id });
    h.last().receive({ type: 'error', code: 'malformed', message: 'not for a subscription' });
    expect(h.errors).toEqual([
      { code: 'forbidden', target: { topic: 'jobs', ensemble: 'prod', params: {} } },
      { code: 'malformed', target: null },
    ]);
  });

  it('ignores frames that do not match the protocol', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.last().receive({ type: 'nonsense' });
    expect(h.client.getStatus().phase).toBe('handshaking');
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });

  describe('heartbeat', () => {
    const liveHarness = () => {
      const h = harness();
      h.client.start();
      h.advance(0);
      h.last().open();
      h.welcome();
      return h;
    };
    const pings = (h: ReturnType<typeof harness>) => h.last().sent.filter((m) => m.type === 'ping').length;

    it('pings about once a second while live', () => {
      const h = liveHarness();
      for (let i = 0; i < 10; i++) {
        h.advance(500);
        h.last().receive({ type: 'pong', at: h.clock() });
      }
      expect(pings(h)).toBeGreaterThanOrEqual(4);
      expect(pings(h)).toBeLessThanOrEqual(6);
      expect(h.client.getStatus().phase).toBe('live');
    });

    it('says the server is not answering within 2.5 s of its last frame, as of that frame, and live again on the next frame', () => {
      const h = liveHarness();
      h.advance(400);
      h.last().receive({ type: 'pong', at: 0 });
      const lastFrame = h.clock();
      h.advance(2_000);
      expect(h.client.getStatus().phase).toBe('live'); // 2.0 s: not yet
      h.advance(500);
      const status = h.client.getStatus();
      expect(status.phase).toBe('unanswered');
      expect(status.lostAt).toBe(lastFrame);
      const socketsBefore = h.sockets.length;
      h.advance(3_000);
      expect(h.client.getStatus().lostAt).toBe(lastFrame); // waiting longer never moves "as of"
      h.last().receive({ type: 'pong', at: 0 });
      expect(h.client.getStatus()).toMatchObject({ phase: 'live', lostAt: null });
      expect(h.sockets.length).toBe(socketsBefore); // no reconnect: same socket, same subscriptions
    });

    it('keeps the "as of" of the last frame when a silent server is finally given up on', () => {
      const h = liveHarness();
      h.last().receive({ type: 'pong', at: 0 });
      const lastFrame = h.clock();
      h.advance(21_000);
      const gaveUp = h.statuses.find((s) => s.phase === 'waiting');
      expect(gaveUp?.lastError).toMatch(/no answer from the server for 20 s/);
      expect(gaveUp?.lostAt).toBe(lastFrame);
    });

    it("a late tick (a hidden tab's throttled timer) judges nothing: it pings and waits for the answer", () => {
      const h = liveHarness();
      h.last().receive({ type: 'pong', at: 0 });
      const before = pings(h);
      h.jump(60_000);
      h.advance(0);
      h.advance(500);
      expect(h.client.getStatus().phase).toBe('live');
      expect(pings(h)).toBeGreaterThan(before);
    });

    it('a dropped socket reports lostAt as the last frame, not the moment the drop was noticed', () => {
      const h = liveHarness();
      h.advance(300);
      h.last().receive({ type: 'pong', at: 0 });
      const lastFrame = h.clock();
      h.advance(900);
      h.last().drop();
      expect(h.client.getStatus()).toMatchObject({ phase: 'waiting', lostAt: lastFrame });
    });
  });

  it("refused for too many tabs (4004): says the server's reason and waits long before trying again", () => {
    const h = harness();
    h.client.start();
    h.advance(0);
    h.last().open();
    h.last().drop(CLOSE_TOO_MANY_SOCKETS, 'too many tabs: at most 50 open for viewer; close one');
    const status = h.client.getStatus();
    expect(status.phase).toBe('waiting');
    expect(status.lastError).toBe('too many tabs: at most 50 open for viewer; close one');
    expect(status.retryAt! - h.clock()).toBeGreaterThanOrEqual(TOO_MANY_TABS_RETRY_MS);
    const sockets = h.sockets.length;
    h.advance(TOO_MANY_TABS_RETRY_MS - 1);
    expect(h.sockets.length).toBe(sockets);
    h.client.reconnectNow();
    expect(h.sockets.length).toBe(sockets + 1); // "Retry now" still works
  });

  describe('when the server falls behind or refuses', () => {
    function live() {
      const h = harness();
      h.client.start();
      h.advance(0);
      h.last().open();
      h.welcome();
      return h;
    }
    const subscribes = (h: ReturnType<typeof harness>) => h.last().sent.filter((m) => m.type === 'subscribe');

    it('on resync, marks everything stale as of when events were dropped and subscribes again to every held target', () => {
      const h = live();
      h.client.subscribe('znode', 'prod', { path: '/a' });
      h.client.subscribe('locks', 'prod', {});
      const released = h.client.subscribe('znode', 'prod', { path: '/gone' });
      released();
      const before = h.client.getStatus().epoch;
      h.last().receive({ type: 'resync', reason: 'fell behind', since: h.clock() - 500 });
      expect(h.client.getStatus()).toMatchObject({ phase: 'live', epoch: before + 1, lostAt: h.clock() - 500, refreshReason: RESYNC_REASON });
      expect(
        subscribes(h)
          .slice(3)
          .map((m) => [m.topic, m.params]),
      ).toEqual([
        ['znode', { path: '/a' }],
        ['locks', {}],
      ]);
      // A welcome later (a reconnect) says "reconnect" again, not "resync".
      h.last().drop();
      h.advance(60_000);
      h.last().open();
      h.welcome();
      expect(h.client.getStatus().refreshReason).toBeNull();
    });

    it('sends a subscribe refused as too fast again after the wait it was told, if still held', () => {
      const h = live();
      h.client.subscribe('znode', 'prod', { path: '/a' });
      const dropped = h.client.subscribe('znode', 'prod', { path: '/b' });
      const [a, b] = subscribes(h);
      h.last().receive({ type: 'error', code: 'rateLimited', message: 'too many subscribes', id: a?.id, retryAfterMs: 800 });
      h.last().receive({ type: 'error', code: 'rateLimited', message: 'too many subscribes', id: b?.id, retryAfterMs: 800 });
      dropped();
      expect(h.errors).toEqual([]);
      h.advance(799);
      expect(subscribes(h)).toHaveLength(2);
      h.advance(1 + RATE_RETRY_JITTER_MS);
      expect(
        subscribes(h)
          .slice(2)
          .map((m) => m.params),
      ).toEqual([{ path: '/a' }]);
    });

    it('hands an error about a subscription (an update too large to send) to that subscription', () => {
      const h = live();
      h.client.subscribe('locks', 'prod', {});
      h.last().receive({ type: 'error', code: 'tooLarge', message: 'too large', subscription: { topic: 'locks', ensemble: 'prod', params: {} } });
      expect(h.errors).toEqual([{ code: 'tooLarge', target: { topic: 'locks', ensemble: 'prod', params: {} } }]);
    });
  });
});
