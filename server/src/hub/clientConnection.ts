/**
 * One browser's WebSocket: the hello handshake, its subscriptions (each a listener on the
 * gateway's shared watch registry), and its outbox. Nothing a browser sends can do more than
 * earn an error reply; state lives in the gateways, so a reconnecting browser just re-subscribes.
 */
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import {
  CLOSE_NO_HELLO,
  CLOSE_PROTOCOL_MISMATCH,
  PROTOCOL_VERSION,
  checkPath,
  outOfScopeMessage,
  parseClientMessage,
  pathWithin,
  type ClientMessage,
  type ErrorCode,
  type ServerEvent,
  type ServerMessage,
} from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import type { WatchListener } from '../zk/watchRegistry.js';
import { Outbox } from './outbox.js';
import { batchFrames } from './batchFrames.js';
import type { HealthFeed } from './healthFeed.js';
import { OPEN_IDENTITY, type Identity } from '../auth/identity.js';
import type { ZnodeOps } from '../ops/znodeOps.js';
import { handleSocketMutation } from './socketMutations.js';
import type { MutationBudget } from './mutationBudget.js';
import type { CappedCounter } from './cappedCounter.js';
import { CLOSE_GRACE_MS, CLOSE_TOO_SLOW, type HubLimits } from './hubLimits.js';

/** The per-socket limits are required; the per-identity and total ones default (hubLimits.ts). */
export type ConnectionLimits = Pick<HubLimits, 'maxSubscriptions' | 'helloTimeoutMs' | 'maxBufferedBytes' | 'batchIntervalMs'> & Partial<HubLimits>;

/** What the hub counts across sockets; set by the SocketHub for every connection it accepts. */
export interface SharedBudgets {
  /** Subscriptions per identity and in total. */
  subscriptions: CappedCounter;
  /** Whether one more distinct watched path is allowed (false: the server's maximum is reached). */
  mayWatchAnotherPath(): boolean;
  maxWatchedPaths: number;
  /** Counts a socket closed for not reading. */
  noteTooSlow(): void;
}

interface Subscription {
  unsubscribe: () => void;
  sentFullChildren: boolean;
  /** Holds a unit of the shared subscription budget, given back when it ends. */
  counted: boolean;
}

export interface HubContext {
  gateways: ReadonlyMap<string, ZkGateway>;
  /** Member pollers by ensemble name; an ensemble without one has no health view. */
  health: ReadonlyMap<string, HealthFeed>;
  serverVersion: string;
  log: Logger;
  limits: ConnectionLimits;
  /** Admin operations; without it every mutation message is refused. */
  ops?: ZnodeOps;
  /** The API's rate limit for mutation messages (none: unlimited). */
  mutationBudget?: MutationBudget;
  /** Caps across sockets (the SocketHub provides them; a bare connection has only its own cap). */
  budgets?: SharedBudgets;
}

export class ClientConnection {
  private ready = false;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly healthWatches = new Map<string, () => void>();
  private readonly outbox: Outbox;
  private readonly helloTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly ctx: HubContext,
    /** Who opened the socket, established at the upgrade (cookie, bearer or share session). */
    readonly identity: Identity = OPEN_IDENTITY,
    private readonly remoteAddress?: string,
  ) {
    this.outbox = new Outbox((events) => this.sendBatch(events), ctx.limits.batchIntervalMs);
    this.helloTimer = setTimeout(() => this.socket.close(CLOSE_NO_HELLO, 'no hello received'), ctx.limits.helloTimeoutMs);
    socket.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    socket.on('close', () => this.dispose());
    socket.on('error', (error) => {
      ctx.log.debug({ err: error }, 'websocket error');
      this.dispose();
    });
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** Bytes queued on the socket and not yet handed to the operating system. */
  get bufferedBytes(): number {
    return this.closed ? 0 : this.socket.bufferedAmount;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /**
   * Closes a browser that does not read what it is sent. Its close frame waits behind what it
   * has not read, so the socket is cut after a short grace: what it held is freed at once.
   */
  dropTooSlow(): void {
    if (this.closed) return;
    this.ctx.log.warn({ buffered: this.socket.bufferedAmount, identity: this.identity.name }, 'browser too slow: closing its socket');
    this.ctx.budgets?.noteTooSlow();
    this.socket.close(CLOSE_TOO_SLOW, 'too slow: reconnect and resync');
    const socket = this.socket;
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    this.dispose();
  }

  /** Session changes of every ensemble reach every ready browser. */
  pushEvent(event: ServerEvent): void {
    const scope = this.identity.shareScope;
    // A share-link holder hears of its link's ensemble only.
    if (scope && 'ensemble' in event && event.ensemble !== scope.ensemble) return;
    if (this.ready && !this.closed) this.outbox.push(event);
  }

  /** Ends the socket because its identity ended (share link revoked, signed out, session expired). */
  end(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.close(code, reason.slice(0, 120));
    this.dispose();
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.helloTimer);
    this.outbox.close();
    for (const sub of this.subscriptions.values()) this.release(sub);
    this.subscriptions.clear();
    for (const stop of this.healthWatches.values()) stop();
    this.healthWatches.clear();
  }

  private onFrame(data: unknown, isBinary: boolean): void {
    try {
      if (isBinary) return this.replyError('malformed', 'binary frames are not part of the protocol');
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      const parsed = parseClientMessage(text);
      if (!parsed.ok) return this.replyError(parsed.code, parsed.message, parsed.id);
      this.handle(parsed.message);
    } catch (error) {
      // Whatever went wrong, this one browser gets an error; the server carries on.
      this.ctx.log.error({ err: error }, 'failed to handle a client frame');
      this.replyError('malformed', 'the server could not handle this message');
    }
  }

  private handle(message: ClientMessage): void {
    if (!this.ready && message.type !== 'hello') {
      return this.replyError('notHello', 'send hello first', message.id);
    }
    switch (message.type) {
      case 'hello':
        return this.onHello(message.protocolVersion);
      case 'subscribe':
        return this.onSubscribe(message.ensemble, message.path, message.id);
      case 'unsubscribe':
        return this.onUnsubscribe(message.ensemble, message.path, message.id);
      case 'watchEnsemble':
        return this.onWatchEnsemble(message.ensemble, message.id);
      case 'unwatchEnsemble':
        this.healthWatches.get(message.ensemble)?.();
        this.healthWatches.delete(message.ensemble);
        if (message.id) this.send({ type: 'ack', id: message.id });
        return;
      case 'ping':
        return this.send({ type: 'pong', at: Date.now(), ...(message.id !== undefined ? { id: message.id } : {}) });
      case 'create':
      case 'setData':
      case 'delete':
      case 'setAcl':
      case 'cancelJob':
        return this.onMutation(message);
      default: {
        const never: never = message;
        return never;
      }
    }
  }

  private onMutation(message: Extract<ClientMessage, { type: 'create' | 'setData' | 'delete' | 'setAcl' | 'cancelJob' }>): void {
    const ops = this.ctx.ops;
    if (!ops) return this.replyError('forbidden', 'this server accepts no changes over the socket', message.id);
    // Checked before the role, so refusals cannot be used to flood the audit trail either.
    if (this.ctx.mutationBudget && !this.ctx.mutationBudget.take(this.remoteAddress ?? 'unknown')) {
      return this.replyError('rateLimited', 'too many changes from this address; slow down', message.id);
    }
    handleSocketMutation(message, this.identity, ops, this.remoteAddress).then(
      (reply) => this.send(reply),
      (error: unknown) => {
        this.ctx.log.error({ err: error }, 'socket mutation failed unexpectedly');
        this.replyError('zookeeper', 'the server could not complete this operation', message.id);
      },
    );
  }

  private onHello(version: number): void {
    if (version !== PROTOCOL_VERSION) {
      this.replyError('protocolMismatch', `server speaks protocol ${PROTOCOL_VERSION}, browser sent ${version}: reload the page`);
      this.socket.close(CLOSE_PROTOCOL_MISMATCH, 'protocol version mismatch');
      return;
    }
    clearTimeout(this.helloTimer);
    this.ready = true;
    const scope = this.identity.shareScope;
    const ensembles = [...this.ctx.gateways.values()].filter((g) => !scope || g.name === scope.ensemble).map((g) => ({ name: g.name, connectionString: g.connectionString, session: g.session }));
    this.send({ type: 'welcome', protocolVersion: PROTOCOL_VERSION, serverVersion: this.ctx.serverVersion, ensembles });
  }

  private onSubscribe(ensemble: string, path: string, id?: string): void {
    const outside = this.outsideScope(ensemble, path);
    if (outside) return this.replyError('outOfScope', outside, id);
    const gateway = this.ctx.gateways.get(ensemble);
    if (!gateway) return this.replyError('unknownEnsemble', `no ensemble named ${JSON.stringify(ensemble)}`, id);
    const check = checkPath(path);
    if (!check.ok) return this.replyError('invalidPath', `invalid path ${JSON.stringify(path)}: ${check.reason}`, id);
    const key = `${ensemble}\0${path}`;
    const existing = this.subscriptions.get(key);
    if (existing) {
      // Already subscribed: re-subscribing replays the current state (a fresh listener joins the
      // cached entry, which the old listener kept alive: no ZooKeeper call, no new count).
      const sub = this.newSubscription(ensemble, path, gateway, existing.counted);
      existing.unsubscribe();
      this.subscriptions.set(key, sub);
      if (id) this.send({ type: 'ack', id });
      return;
    }
    const refusal = this.admitSubscription(gateway, path);
    if (refusal) return this.replyError('tooManySubscriptions', refusal, id);
    this.subscriptions.set(key, this.newSubscription(ensemble, path, gateway, this.ctx.budgets !== undefined));
    if (id) this.send({ type: 'ack', id });
  }

  /** Null when one more subscription fits every cap; otherwise the sentence that says which did not. */
  private admitSubscription(gateway: ZkGateway, path: string): string | null {
    const { maxSubscriptions } = this.ctx.limits;
    if (this.subscriptions.size >= maxSubscriptions) return `at most ${maxSubscriptions} subscriptions per browser tab: close views you do not need`;
    const budgets = this.ctx.budgets;
    if (!budgets) return null;
    if (!gateway.watches.isWatched(path) && !budgets.mayWatchAnotherPath()) {
      return `Keeper already watches ${budgets.maxWatchedPaths} paths, its limit: try again when others close views`;
    }
    const verdict = budgets.subscriptions.take(this.identity);
    if (verdict.ok) return null;
    return verdict.cap === 'identity'
      ? `at most ${verdict.limit} subscriptions for ${this.identity.name} across all its tabs: close views or tabs you do not need`
      : `the server holds its maximum of ${verdict.limit} subscriptions: try again when others close views`;
  }

  private release(sub: Subscription): void {
    sub.unsubscribe();
    if (sub.counted) this.ctx.budgets?.subscriptions.give(this.identity);
    sub.counted = false;
  }

  private newSubscription(ensemble: string, path: string, gateway: ZkGateway, counted: boolean): Subscription {
    const sub: Subscription = { unsubscribe: () => undefined, sentFullChildren: false, counted };
    const listener: WatchListener = {
      onNode: (node) => this.outbox.push({ type: 'znode', ensemble, path, node, at: Date.now() }),
      onChildren: ({ names, diff }) => {
        if (!sub.sentFullChildren || !diff) {
          sub.sentFullChildren = true;
          this.outbox.push({ type: 'children', ensemble, path, mode: 'full', names: [...names], total: names.length });
        } else {
          this.outbox.push({ type: 'children', ensemble, path, mode: 'diff', added: diff.added, removed: diff.removed, total: names.length });
        }
      },
      onWatchEvent: (event, at) => this.outbox.push({ type: 'watchEvent', ensemble, path, event, at }),
      onError: (error, retrying) => this.outbox.push({ type: 'subscriptionError', ensemble, path, message: error.message, retrying }),
    };
    sub.unsubscribe = gateway.watches.watch(path, listener);
    return sub;
  }

  private onWatchEnsemble(ensemble: string, id?: string): void {
    const outside = this.outsideScope(ensemble, null);
    if (outside) return this.replyError('outOfScope', outside, id);
    const feed = this.ctx.health.get(ensemble);
    if (!feed) {
      const known = this.ctx.gateways.has(ensemble);
      return this.replyError('unknownEnsemble', known ? `no member poller for ${JSON.stringify(ensemble)}` : `no ensemble named ${JSON.stringify(ensemble)}`, id);
    }
    this.healthWatches.get(ensemble)?.();
    // History first, then the current state: the browser draws charts and cards from one batch.
    this.outbox.push({ type: 'memberHistory', ensemble, mode: 'full', history: feed.history() });
    const current = feed.current();
    if (current) this.outbox.push({ type: 'ensembleHealth', ensemble, health: current });
    const stop = feed.subscribe((health, appended) => {
      this.outbox.push({ type: 'memberHistory', ensemble, mode: 'append', history: appended });
      this.outbox.push({ type: 'ensembleHealth', ensemble, health });
    });
    this.healthWatches.set(ensemble, stop);
    if (id) this.send({ type: 'ack', id });
  }

  /**
   * For a share-link holder: why this ensemble, znode (path) or the ensemble views (path null) are
   * outside its link's scope; null when they are within it, or for any other identity.
   */
  private outsideScope(ensemble: string, path: string | null): string | null {
    const scope = this.identity.shareScope;
    if (!scope) return null;
    if (ensemble !== scope.ensemble) return outOfScopeMessage(scope, `ensemble ${JSON.stringify(ensemble)}`);
    if (path === null) return scope.ensembleViews ? null : outOfScopeMessage(scope, 'the ensemble views (members, health)');
    return pathWithin(scope.root, path) ? null : outOfScopeMessage(scope, JSON.stringify(path));
  }

  private onUnsubscribe(ensemble: string, path: string, id?: string): void {
    const key = `${ensemble}\0${path}`;
    const sub = this.subscriptions.get(key);
    if (sub) {
      this.release(sub);
      this.subscriptions.delete(key);
    }
    if (id) this.send({ type: 'ack', id });
  }

  private replyError(code: ErrorCode, message: string, id?: string): void {
    this.send({ type: 'error', code, message, ...(id !== undefined ? { id } : {}) });
  }

  /** One flush, in frames of bounded size, each sent only while the browser keeps up. */
  private sendBatch(events: ServerEvent[]): void {
    for (const frame of batchFrames(events)) if (!this.sendText(frame)) return;
  }

  private send(message: ServerMessage): void {
    this.sendText(JSON.stringify(message));
  }

  /** False when the socket is gone or was just closed for being too slow. */
  private sendText(text: string): boolean {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount > this.ctx.limits.maxBufferedBytes) {
      this.dropTooSlow();
      return false;
    }
    this.socket.send(text);
    return true;
  }
}
