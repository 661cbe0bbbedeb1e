/**
 * The one WebSocket to the Keeper server, without React: connect, hello, reconnect with back-off,
 * ref-counted subscriptions re-sent after every reconnect (the server keeps nothing per browser
 * across sockets), and a heartbeat that notices half-open connections. SocketProvider wires it to
 * the query cache; tests drive it with a fake socket and fake timers.
 */
import {
  CLOSE_ACCESS_ENDED,
  CLOSE_PROTOCOL_MISMATCH,
  CLOSE_TOO_MANY_SOCKETS,
  PROTOCOL_VERSION,
  protocolMismatchMessage,
  serverMessageSchema,
  type ClientMessage,
  type ServerEvent,
  type ServerMessage,
  type TopicName,
  type TopicParams,
} from '@keeper/shared';
import { reconnectDelay, VISIBLE_MAX_MS } from './backoff';
import { initialConnectionStatus, isOpenPhase, type ConnectionStatus } from './connectionStatus';
import { subscribeMessage, SubscriptionRegistry, targetKey, unsubscribeMessage, type SubscriptionTarget } from './subscriptionRegistry';

/** The part of the browser WebSocket this client uses, so tests can pass a fake. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface SocketEnv {
  createSocket(url: string): SocketLike;
  now(): number;
  random(): number;
  isVisible(): boolean;
  /** Calls back when the tab becomes visible again (or the network comes back); returns an unsubscribe. */
  onWakeUp(callback: () => void): () => void;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

type WelcomeMessage = Extract<ServerMessage, { type: 'welcome' }>;
type ErrorMessage = Extract<ServerMessage, { type: 'error' }>;

export interface SocketHandlers {
  onStatus(status: ConnectionStatus): void;
  onWelcome(message: WelcomeMessage, epoch: number): void;
  /** All events of one server batch, to be applied as one render. */
  onBatch(events: ServerEvent[], epoch: number): void;
  /** A server error; `target` is set when it answers one of our subscribe messages. */
  onError(message: ErrorMessage, target: SubscriptionTarget | null): void;
  /** Nobody shows this target any more: its cached data will not be kept up to date. */
  onReleased(target: SubscriptionTarget): void;
}

/** A collapsed tree node re-expanded within this time costs no unsubscribe/subscribe round trip (and React StrictMode's double mount costs nothing). */
export const RELEASE_GRACE_MS = 1_500;
/** After a refusal for too many open tabs (close code 4004): the next try comes this late at the earliest. */
export const TOO_MANY_TABS_RETRY_MS = 30_000;
/** Why entries are stale after the server said `resync` (it dropped events for this page). */
export const RESYNC_REASON = 'refreshing: Keeper fell behind sending to this page';
/** A subscribe refused as too fast is sent again after the server's wait, plus up to this much jitter. */
export const RATE_RETRY_JITTER_MS = 250;

/** The heartbeat looks this often; a ping goes out every other look (once a second). */
export const HEARTBEAT_TICK_MS = 500;
export const PING_INTERVAL_MS = 1_000;
/** Nothing from the server for this long (a pong is due every second): "Keeper is not answering". */
export const UNANSWERED_AFTER_MS = 2_000;
/** No frame at all for this long (pongs included) means the connection is dead even if TCP has not noticed. */
export const SILENCE_LIMIT_MS = 20_000;

const OPEN = 1;

export class SocketClient {
  private readonly registry = new SubscriptionRegistry();
  private readonly pendingRelease = new Map<string, { handle: unknown; target: SubscriptionTarget }>();
  private readonly requestTargets = new Map<string, SubscriptionTarget>();
  private socket: SocketLike | null = null;
  private status: ConnectionStatus;
  private retryTimer: unknown = null;
  private pingTimer: unknown = null;
  private lastFrameAt = 0;
  private lastPingAt = 0;
  private lastTickAt = 0;
  /** Silence is measured from the later of the last frame and this (a late tick restarts the count). */
  private judgeFrom = 0;
  private nextRequestId = 1;
  private stopWake: (() => void) | null = null;
  /** Subscribes refused as too fast, to be sent again (cleared with the socket). */
  private readonly retries = new Set<unknown>();

  constructor(
    private readonly url: string,
    private readonly env: SocketEnv,
    private readonly handlers: SocketHandlers,
  ) {
    this.status = initialConnectionStatus(env.now());
  }

  getStatus(): ConnectionStatus {
    return this.status;
  }

  start(): void {
    this.stopWake = this.env.onWakeUp(() => this.wakeUp());
    // Deferred one tick: React StrictMode starts, stops and restarts effects at once in development,
    // and a socket opened and closed in the same tick only produces a browser warning.
    this.retryTimer = this.env.setTimeout(() => this.connect(), 0);
  }

  stop(): void {
    this.stopWake?.();
    this.stopWake = null;
    this.clearTimers();
    for (const { handle } of this.pendingRelease.values()) this.env.clearTimeout(handle);
    this.pendingRelease.clear();
    const socket = this.detachSocket();
    socket?.close(1000, 'page closed');
    this.setStatus({ phase: 'stopped', since: this.env.now(), retryAt: null });
  }

  /** Holds a subscription to a topic until the returned function is called (idempotent). */
  subscribe<T extends TopicName>(topic: T, ensemble: string, params: TopicParams<T>): () => void {
    const target: SubscriptionTarget = { topic, ensemble, params };
    const key = targetKey(target);
    const first = this.registry.acquire(target);
    if (first) {
      const pending = this.pendingRelease.get(key);
      if (pending !== undefined) {
        // Still subscribed on the server: taking it back costs nothing.
        this.env.clearTimeout(pending.handle);
        this.pendingRelease.delete(key);
      } else if (isOpenPhase(this.status.phase)) {
        this.sendSubscribe(target);
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (this.registry.release(key)) this.scheduleRelease(key, target);
    };
  }

  /** The operator pressed "retry now": skip the rest of the back-off. */
  reconnectNow(): void {
    if (this.status.phase !== 'waiting') return;
    if (this.retryTimer !== null) this.env.clearTimeout(this.retryTimer);
    this.connect();
  }

  /** How many holders a subscription has; for tests and debugging. */
  holders<T extends TopicName>(topic: T, ensemble: string, params: TopicParams<T>): number {
    return this.registry.count(targetKey({ topic, ensemble, params }));
  }

  private scheduleRelease(key: string, target: SubscriptionTarget): void {
    const handle = this.env.setTimeout(() => {
      this.pendingRelease.delete(key);
      if (this.registry.has(key)) return;
      if (isOpenPhase(this.status.phase)) this.send(unsubscribeMessage(target));
      this.handlers.onReleased(target);
    }, RELEASE_GRACE_MS);
    this.pendingRelease.set(key, { handle, target });
  }

  private connect(): void {
    this.retryTimer = null;
    this.setStatus({ phase: 'connecting', since: this.env.now(), retryAt: null });
    let socket: SocketLike;
    try {
      socket = this.env.createSocket(this.url);
    } catch (err) {
      this.handleDrop(`cannot open socket: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.lastFrameAt = this.env.now();
      this.setStatus({ phase: 'handshaking', since: this.env.now() });
      this.send({ type: 'hello', protocolVersion: PROTOCOL_VERSION });
    };
    socket.onmessage = (ev) => this.handleFrame(ev.data);
    socket.onclose = (ev) => {
      if (ev.code === CLOSE_PROTOCOL_MISMATCH) {
        this.fail(`the server speaks another protocol version (${ev.reason || 'closed 4001'}); reload the page`);
        return;
      }
      if (ev.code === CLOSE_ACCESS_ENDED) {
        // Reconnecting would only be refused: the app shows why access ended instead.
        this.fail(ev.reason || 'access ended', 'ended');
        return;
      }
      if (ev.code === CLOSE_TOO_MANY_SOCKETS) {
        // Retrying at once would only be refused again (and add to the load): wait long, say why.
        this.handleDrop(ev.reason || 'too many Keeper tabs are open', TOO_MANY_TABS_RETRY_MS);
        return;
      }
      this.handleDrop(`connection closed (${ev.code}${ev.reason ? `: ${ev.reason}` : ''})`);
    };
    // An error is always followed by close, which does the work.
    socket.onerror = () => {};
  }

  private handleFrame(raw: unknown): void {
    this.lastFrameAt = this.env.now();
    // Any frame proves the server alive again: the link is live, with the same subscriptions.
    if (this.status.phase === 'unanswered') this.setStatus({ phase: 'live', since: this.lastFrameAt, lostAt: null });
    if (typeof raw !== 'string') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      console.warn('keeper: ignoring a frame that is not JSON');
      return;
    }
    const parsed = serverMessageSchema.safeParse(json);
    if (!parsed.success) {
      console.warn('keeper: ignoring a frame that does not match the protocol', parsed.error.issues);
      return;
    }
    this.handleMessage(parsed.data);
  }

  private handleMessage(message: ServerMessage): void {
    switch (message.type) {
      case 'welcome': {
        if (message.protocolVersion !== PROTOCOL_VERSION) {
          this.fail(protocolMismatchMessage(message.protocolVersion, PROTOCOL_VERSION));
          return;
        }
        const epoch = this.status.epoch + 1;
        this.setStatus({
          phase: 'live',
          since: this.env.now(),
          epoch,
          downSince: null,
          attempt: 0,
          retryAt: null,
          lastError: null,
          serverVersion: message.serverVersion,
          refreshReason: null,
        });
        this.handlers.onWelcome(message, epoch);
        for (const target of this.registry.targets()) this.sendSubscribe(target);
        this.startHeartbeat();
        return;
      }
      case 'batch':
        this.handlers.onBatch(message.events, this.status.epoch);
        return;
      case 'resync':
        // The server dropped events for this page: everything shown is complete only up to
        // `since`. A new epoch marks it stale; subscribing again brings each current state.
        this.setStatus({ epoch: this.status.epoch + 1, lostAt: Math.min(message.since, this.env.now()), refreshReason: RESYNC_REASON });
        for (const target of this.registry.targets()) this.sendSubscribe(target);
        return;
      case 'error': {
        if (message.code === 'protocolMismatch') {
          this.fail(message.message);
          return;
        }
        const requested = message.id === undefined ? undefined : this.requestTargets.get(message.id);
        if (message.id !== undefined) this.requestTargets.delete(message.id);
        if (message.code === 'rateLimited' && requested) {
          this.retryLater(requested, message.retryAfterMs ?? 1_000);
          return;
        }
        this.handlers.onError(message, requested ?? message.subscription ?? null);
        return;
      }
      case 'ack':
        this.requestTargets.delete(message.id);
        return;
      case 'pong':
        return;
      default: {
        const never: never = message;
        console.warn('keeper: unhandled server message', never);
      }
    }
  }

  /** Sends a subscribe the server found too fast again after its wait, if something still holds it. */
  private retryLater(target: SubscriptionTarget, waitMs: number): void {
    const socket = this.socket;
    const handle = this.env.setTimeout(
      () => {
        this.retries.delete(handle);
        if (this.socket !== socket || !isOpenPhase(this.status.phase) || !this.registry.has(targetKey(target))) return;
        this.sendSubscribe(target);
      },
      waitMs + Math.round(this.env.random() * RATE_RETRY_JITTER_MS),
    );
    this.retries.add(handle);
  }

  private sendSubscribe(target: SubscriptionTarget): void {
    const id = `s${this.nextRequestId++}`;
    this.requestTargets.set(id, target);
    this.send(subscribeMessage(target, id));
  }

  private send(message: ClientMessage): void {
    if (this.socket?.readyState !== OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  private startHeartbeat(): void {
    if (this.pingTimer !== null) this.env.clearTimeout(this.pingTimer);
    this.lastTickAt = this.env.now();
    this.pingTimer = this.env.setTimeout(() => {
      this.pingTimer = null;
      if (!isOpenPhase(this.status.phase)) return;
      this.heartbeat();
      this.startHeartbeat();
    }, HEARTBEAT_TICK_MS);
  }

  /**
   * Once a second a ping; after UNANSWERED_AFTER_MS without any frame, "not answering", as of the
   * last frame; after SILENCE_LIMIT_MS, a reconnect. A tick that comes late (a hidden tab's timers
   * are throttled to one a minute) judges nothing: the pongs were not asked for, so their absence
   * says nothing about the server. It pings and judges at the next tick.
   */
  private heartbeat(): void {
    const now = this.env.now();
    const late = now - this.lastTickAt > HEARTBEAT_TICK_MS * 3;
    if (late) this.judgeFrom = now;
    const silentFor = now - Math.max(this.lastFrameAt, this.judgeFrom);
    if (silentFor > SILENCE_LIMIT_MS) {
      const socket = this.detachSocket();
      socket?.close(4000, 'no frames from server');
      this.handleDrop(`no answer from the server for ${Math.round(SILENCE_LIMIT_MS / 1000)} s`);
      return;
    }
    if (silentFor > UNANSWERED_AFTER_MS && this.status.phase === 'live') {
      this.setStatus({
        phase: 'unanswered',
        since: now,
        lostAt: this.lastFrameAt,
        lastError: `no answer from the Keeper server for ${(silentFor / 1000).toFixed(1)} s`,
      });
    }
    if (late || now - this.lastPingAt >= PING_INTERVAL_MS) {
      this.lastPingAt = now;
      this.send({ type: 'ping' });
    }
  }

  /** Detaches handlers first so a late close event from an abandoned socket cannot schedule a second retry. */
  private detachSocket(): SocketLike | null {
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = null;
      socket.onmessage = null;
      socket.onclose = null;
      socket.onerror = null;
    }
    return socket;
  }

  /** `minDelayMs`: wait at least this long (jittered up to 1.5 times) before the next try. */
  private handleDrop(reason: string, minDelayMs = 0): void {
    this.detachSocket();
    if (this.status.phase === 'stopped' || this.status.phase === 'fatal' || this.status.phase === 'ended') return;
    const wasLive = isOpenPhase(this.status.phase);
    const wasAnswering = this.status.phase === 'live';
    this.clearTimers();
    this.requestTargets.clear();
    // The server forgot every subscription with the socket: pending releases are done.
    for (const { handle, target } of this.pendingRelease.values()) {
      this.env.clearTimeout(handle);
      this.handlers.onReleased(target);
    }
    this.pendingRelease.clear();
    const now = this.env.now();
    const backoff = reconnectDelay(this.status.attempt, this.env.isVisible(), this.env.random());
    const delay = minDelayMs > 0 ? Math.max(backoff, Math.round(minDelayMs * (1 + 0.5 * this.env.random()))) : backoff;
    this.setStatus({
      phase: 'waiting',
      since: now,
      // As of the last frame received (kept from when the server stopped answering, if it did).
      lostAt: wasAnswering ? this.lastFrameAt || now : this.status.lostAt,
      downSince: wasLive ? now : (this.status.downSince ?? now),
      retryAt: now + delay,
      attempt: this.status.attempt + 1,
      lastError: reason,
    });
    this.retryTimer = this.env.setTimeout(() => this.connect(), delay);
  }

  /** The tab came back into view: a retry scheduled with the hidden-tab back-off is brought forward. */
  private wakeUp(): void {
    if (this.status.phase !== 'waiting' || this.status.retryAt === null) return;
    if (this.status.retryAt - this.env.now() <= VISIBLE_MAX_MS) return;
    if (this.retryTimer !== null) this.env.clearTimeout(this.retryTimer);
    const delay = reconnectDelay(0, true, this.env.random());
    this.setStatus({ retryAt: this.env.now() + delay });
    this.retryTimer = this.env.setTimeout(() => this.connect(), delay);
  }

  private fail(reason: string, phase: 'fatal' | 'ended' = 'fatal'): void {
    this.clearTimers();
    const socket = this.detachSocket();
    socket?.close(1000, phase === 'ended' ? 'access ended' : 'protocol mismatch');
    this.setStatus({
      phase,
      since: this.env.now(),
      lostAt: this.status.phase === 'live' ? this.lastFrameAt || this.env.now() : this.status.lostAt,
      downSince: this.status.downSince ?? this.env.now(),
      retryAt: null,
      fatalReason: reason,
    });
  }

  private clearTimers(): void {
    if (this.retryTimer !== null) this.env.clearTimeout(this.retryTimer);
    if (this.pingTimer !== null) this.env.clearTimeout(this.pingTimer);
    for (const handle of this.retries) this.env.clearTimeout(handle);
    this.retries.clear();
    this.retryTimer = null;
    this.pingTimer = null;
  }

  private setStatus(patch: Partial<ConnectionStatus>): void {
    this.status = { ...this.status, ...patch };
    this.handlers.onStatus(this.status);
  }
}
