/**
 * One browser's WebSocket: the hello handshake, its subscriptions to live topics (each fed by the
 * topic's producer from what the ensemble already shares), and its outbox. Every topic goes the
 * same way: role, ensemble, parameters, share scope, caps, then the producer. Nothing a browser
 * sends can do more than earn an error reply; state lives in the ensembles, so a reconnecting
 * browser just re-subscribes.
 */
import type { Logger } from 'pino';
import {
  CLOSE_NO_HELLO,
  CLOSE_PROTOCOL_MISMATCH,
  PROTOCOL_VERSION,
  outOfScopeMessage,
  parseClientMessage,
  pathWithin,
  protocolMismatchMessage,
  subscriptionKey,
  topicDeclaration,
  type ClientMessage,
  type ErrorCode,
  type ServerEvent,
  type ServerMessage,
  type TopicName,
  type TopicReach,
} from '@keeper/shared';
import { Outbox } from './outbox.js';
import { batchFrames } from './batchFrames.js';
import { OPEN_IDENTITY, type Identity } from '../auth/identity.js';
import type { CappedCounter } from './cappedCounter.js';
import { CLOSE_GRACE_MS, CLOSE_TOO_SLOW, type HubLimits } from './hubLimits.js';
import type { Ensembles } from '../ensemble/ensembles.js';
import { UnknownEnsembleError } from '../ensemble/ensembles.js';
import type { TopicProducer, TopicProducers } from '../topics/topicProducer.js';
import type { SocketLike } from './socketLike.js';

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
  /** Holds a unit of the shared subscription budget, given back when it ends. */
  counted: boolean;
}

export interface HubContext {
  ensembles: Ensembles;
  producers: TopicProducers;
  serverVersion: string;
  log: Logger;
  limits: ConnectionLimits;
  /** Caps across sockets (the SocketHub provides them; a bare connection has only its own cap). */
  budgets?: SharedBudgets;
}

type SubscribeMessage = Extract<ClientMessage, { type: 'subscribe' | 'unsubscribe' }>;

export class ClientConnection {
  private ready = false;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly outbox: Outbox;
  private readonly helloTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly socket: SocketLike,
    private readonly ctx: HubContext,
    /** Who opened the socket, established at the upgrade (cookie, bearer or share session). */
    readonly identity: Identity = OPEN_IDENTITY,
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
  }

  private onFrame(data: unknown, isBinary: boolean): void {
    try {
      if (isBinary) return this.replyError('malformed', 'binary frames are not part of the protocol');
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data as ArrayBuffer).toString('utf8');
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
        return this.onSubscribe(message);
      case 'unsubscribe':
        return this.onUnsubscribe(message);
      case 'ping':
        return this.send({ type: 'pong', at: Date.now(), ...(message.id !== undefined ? { id: message.id } : {}) });
      default: {
        const never: never = message;
        return never;
      }
    }
  }

  private onHello(version: number): void {
    if (version !== PROTOCOL_VERSION) {
      this.replyError('protocolMismatch', protocolMismatchMessage(PROTOCOL_VERSION, version));
      this.socket.close(CLOSE_PROTOCOL_MISMATCH, 'protocol version mismatch');
      return;
    }
    clearTimeout(this.helloTimer);
    this.ready = true;
    const scope = this.identity.shareScope;
    const ensembles = [...this.ctx.ensembles].filter((e) => !scope || e.name === scope.ensemble).map((e) => e.summary());
    this.send({ type: 'welcome', protocolVersion: PROTOCOL_VERSION, serverVersion: this.ctx.serverVersion, ensembles });
  }

  /**
   * Identity and role first, so nothing a viewer sends to an admin topic is read further; then
   * the ensemble, the parameters against the topic's schema, the share scope and the caps.
   */
  private onSubscribe(message: SubscribeMessage): void {
    const { topic, id } = message;
    const declaration = topicDeclaration(topic);
    if (declaration.role === 'admin' && this.identity.role !== 'admin') {
      return this.replyError('forbidden', `${this.identity.name} is a ${this.identity.role}: only admins may follow ${topic}`, id);
    }
    const ensemble = this.ctx.ensembles.find(message.ensemble);
    if (!ensemble) {
      // A share-link holder learns nothing about other ensembles, not even whether they exist.
      const outside = this.outsideScope(message.ensemble, { kind: 'ensemble' });
      return outside ? this.replyError('outOfScope', outside, id) : this.replyError('unknownEnsemble', new UnknownEnsembleError(message.ensemble).message, id);
    }
    const parsed = declaration.params.safeParse(message.params ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
      return this.replyError('invalidParams', `invalid parameters for ${topic}: ${detail}`, id);
    }
    const params: unknown = parsed.data;
    const outside = this.outsideScope(ensemble.name, declaration.reach(params));
    if (outside) return this.replyError('outOfScope', outside, id);
    const producer = this.ctx.producers[topic] as unknown as TopicProducer<TopicName>;
    const key = subscriptionKey(topic, ensemble.name, params);
    const existing = this.subscriptions.get(key);
    if (existing) {
      // Already subscribed: re-subscribing replays the current state (a fresh producer joins what
      // the old one kept alive: no ZooKeeper call, no new count).
      const sub = this.openSubscription(producer, ensemble, params, existing.counted);
      existing.unsubscribe();
      this.subscriptions.set(key, sub);
      if (id) this.send({ type: 'ack', id });
      return;
    }
    const refusal = this.admitSubscription(producer.addsWatch?.(ensemble, params as never) ?? false);
    if (refusal) return this.replyError('tooManySubscriptions', refusal, id);
    this.subscriptions.set(key, this.openSubscription(producer, ensemble, params, this.ctx.budgets !== undefined));
    if (id) this.send({ type: 'ack', id });
  }

  /** Null when one more subscription fits every cap; otherwise the sentence that says which did not. */
  private admitSubscription(addsWatch: boolean): string | null {
    const { maxSubscriptions } = this.ctx.limits;
    if (this.subscriptions.size >= maxSubscriptions) return `at most ${maxSubscriptions} subscriptions per browser tab: close views you do not need`;
    const budgets = this.ctx.budgets;
    if (!budgets) return null;
    if (addsWatch && !budgets.mayWatchAnotherPath()) {
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

  private openSubscription(
    producer: TopicProducer<TopicName>,
    ensemble: Parameters<TopicProducer<TopicName>['open']>[0]['ensemble'],
    params: unknown,
    counted: boolean,
  ): Subscription {
    const topic = producer.topic;
    const emit = (event: unknown) => this.outbox.push({ topic, ensemble: ensemble.name, params, event } as ServerEvent);
    const scope = this.identity.shareScope ?? null;
    return { unsubscribe: producer.open({ ensemble, params: params as never, scope, emit }), counted };
  }

  /**
   * For a share-link holder: why this ensemble, or what the subscription reaches in it, is outside
   * its link's scope; null when it is within it, or for any other identity.
   */
  private outsideScope(ensemble: string, reach: TopicReach): string | null {
    const scope = this.identity.shareScope;
    if (!scope) return null;
    if (ensemble !== scope.ensemble) return outOfScopeMessage(scope, `ensemble ${JSON.stringify(ensemble)}`);
    switch (reach.kind) {
      case 'ensemble':
        return null;
      case 'ensembleViews':
        return scope.ensembleViews ? null : outOfScopeMessage(scope, 'the ensemble views (members, health)');
      case 'znode':
        return pathWithin(scope.root, reach.path) ? null : outOfScopeMessage(scope, JSON.stringify(reach.path));
    }
  }

  /** Unknown or invalid parameters name no subscription: the acknowledgement is all there is to say. */
  private onUnsubscribe(message: SubscribeMessage): void {
    const parsed = topicDeclaration(message.topic).params.safeParse(message.params ?? {});
    if (parsed.success) {
      const key = subscriptionKey(message.topic, message.ensemble, parsed.data);
      const sub = this.subscriptions.get(key);
      if (sub) {
        this.release(sub);
        this.subscriptions.delete(key);
      }
    }
    if (message.id) this.send({ type: 'ack', id: message.id });
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
