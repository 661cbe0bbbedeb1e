/**
 * One browser's WebSocket: the hello handshake, its subscriptions to live topics (each a member
 * of the hub's channel for that topic, fed by one producer for every browser), and its outbox.
 * Every topic goes the same way: rate, role, ensemble, parameters, share scope, caps, then the
 * channel. Nothing a browser sends can do more than earn an error reply; state lives in the
 * ensembles, so a reconnecting browser just re-subscribes.
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
  type ServerMessage,
  type TopicName,
  type TopicReach,
} from '@keeper/shared';
import { MAX_QUEUED_EVENTS, Outbox } from './outbox.js';
import { FrameLedger, FrameWriter } from './frameWriter.js';
import { FlushScheduler } from './flushScheduler.js';
import { OPEN_IDENTITY, type Identity } from '../auth/identity.js';
import type { CappedCounter, CapVerdict } from './cappedCounter.js';
import { CLOSE_GRACE_MS, CLOSE_TOO_SLOW, DEFAULT_HUB_LIMITS, type HubLimits } from './hubLimits.js';
import type { Ensembles } from '../ensemble/ensembles.js';
import { UnknownEnsembleError } from '../ensemble/ensembles.js';
import type { TopicProducer, TopicProducers } from '../topics/topicProducer.js';
import type { SocketLike } from './socketLike.js';
import { sessionAudience, summaryFor } from '../auth/sessionView.js';
import { TopicChannels, type ChannelMember, type Membership } from './topicChannels.js';
import { BATCH_OVERHEAD, type SharedEvent } from './sharedEvent.js';
import { TokenBucket, subscribeUnits, type PersonBuckets } from './subscribeRate.js';

/** The per-socket limits are required; the others default (hubLimits.ts). */
export type ConnectionLimits = Pick<HubLimits, 'maxSubscriptions' | 'helloTimeoutMs' | 'maxBufferedBytes' | 'batchIntervalMs'> & Partial<HubLimits>;

/** What the hub shares across sockets; set by the SocketHub for every connection it accepts. */
export interface SharedBudgets {
  /** Subscriptions per person, identity, share links, and in total. */
  subscriptions: CappedCounter;
  /** Whether one more distinct watched path is allowed (false: the server's maximum is reached). */
  mayWatchAnotherPath(): boolean;
  maxWatchedPaths: number;
  /** Subscribe rate per person. */
  persons: PersonBuckets;
  /** Counts a socket closed for not reading. */
  noteTooSlow(): void;
}

/** Where connections meet: one channel per topic and parameters, one flush pass per tick, one count of unsent bytes. */
export interface SharedFanOut {
  channels: TopicChannels;
  scheduler: FlushScheduler;
  ledger: FrameLedger;
}

interface Subscription {
  membership: Membership;
  /** Holds a unit of the shared subscription budget, given back when it ends. */
  counted: boolean;
}

export interface HubContext {
  ensembles: Ensembles;
  producers: TopicProducers;
  serverVersion: string;
  log: Logger;
  limits: ConnectionLimits;
  /** Caps across sockets (the SocketHub provides them; a bare connection has only its own caps). */
  budgets?: SharedBudgets;
  /** Channels, flush passes and the unsent-bytes ledger across sockets (a bare connection has its own). */
  fanOut?: SharedFanOut;
  /** Seconds from a channel's live event to its frame handed to this socket (keeper_push_seconds). */
  observePush?: (seconds: number) => void;
}

type SubscribeMessage = Extract<ClientMessage, { type: 'subscribe' | 'unsubscribe' }>;

/** A heartbeat as every page sends it (JSON.stringify({type: 'ping'})). */
const PING = '{"type":"ping"}';
/**
 * A ping gets no pong when a frame went out this recently: the page counts any frame as an
 * answer, pings every second and calls the server silent after 2 s (UNANSWERED_AFTER_MS), so
 * the longest it can go without a frame stays under 1.5 s.
 */
const PONG_NOT_NEEDED_MS = 500;

export class ClientConnection {
  private ready = false;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly outbox: Outbox;
  private readonly writer: FrameWriter;
  private readonly fanOut: SharedFanOut;
  private readonly rate: TokenBucket;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly member: ChannelMember = { deliver: (event, live) => this.deliver(event, live) };
  /** Live events queued for this socket and not yet sent: timed when their frame goes out. */
  private readonly timed = new WeakSet<SharedEvent>();
  private closed = false;

  constructor(
    private readonly socket: SocketLike,
    private readonly ctx: HubContext,
    /** Who opened the socket, established at the upgrade (cookie, bearer or share session). */
    readonly identity: Identity = OPEN_IDENTITY,
    /** Which person (a browser's sign-in; a bearer token from one address): caps and rates count per person. */
    readonly person = 'open',
  ) {
    const limits = ctx.limits;
    this.fanOut = ctx.fanOut ?? { channels: new TopicChannels(), scheduler: new FlushScheduler(), ledger: new FrameLedger(Number.POSITIVE_INFINITY) };
    const observePush = ctx.observePush;
    this.writer = new FrameWriter(
      socket,
      this.fanOut.ledger,
      limits.maxBufferedBytes,
      () => this.outbox.wake(),
      observePush &&
        ((events) => {
          const now = performance.now();
          for (const event of events) if (this.timed.delete(event)) observePush((now - event.liveAt) / 1000);
        }),
    );
    this.outbox = new Outbox(this.writer, limits.batchIntervalMs, this.fanOut.scheduler, {
      maxQueuedBytes: limits.maxBufferedBytes,
      maxQueuedEvents: MAX_QUEUED_EVENTS,
    });
    this.rate = new TokenBucket(limits.subscribesPerSecond ?? DEFAULT_HUB_LIMITS.subscribesPerSecond);
    this.helloTimer = setTimeout(() => this.socket.close(CLOSE_NO_HELLO, 'no hello received'), limits.helloTimeoutMs);
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

  /** Bytes handed to the socket and not yet written out (frames shared with other sockets included). */
  get bufferedBytes(): number {
    return this.closed ? 0 : this.writer.unsent;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Times this socket fell behind and was told to resync. */
  get resyncs(): number {
    return this.outbox.dropped;
  }

  /** True when the socket has held unsent bytes for `stallMs` without writing any out. */
  stalled(now: number, stallMs: number): boolean {
    return !this.closed && this.writer.unsent > 0 && now - this.writer.lastProgressAt > stallMs;
  }

  /**
   * Closes a browser that does not read what it is sent. Its close frame waits behind what it
   * has not read, so the socket is cut after a short grace: what it held is freed at once.
   */
  dropTooSlow(): void {
    if (this.closed) return;
    this.ctx.log.warn({ buffered: this.writer.unsent, identity: this.identity.name }, 'browser too slow: closing its socket');
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
    this.writer.end();
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
      // Every page pings once a second: the common frame skips the schema, and needs no answer
      // when a frame went out lately (any frame tells the page the server is alive; a thousand
      // pages on busy views would otherwise cost a thousand writes a second more).
      if (text === PING && this.ready) return this.pong();
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
    const audience = sessionAudience(this.identity.role, scope);
    const ensembles = [...this.ctx.ensembles].filter((e) => !scope || e.name === scope.ensemble).map((e) => summaryFor(e.summary(), audience));
    this.send({ type: 'welcome', protocolVersion: PROTOCOL_VERSION, serverVersion: this.ctx.serverVersion, ensembles });
  }

  /**
   * The rate first (nothing is read of a subscribe past it), then identity and role, so nothing a
   * viewer sends to an admin topic is read further; then the ensemble, the parameters against the
   * topic's schema, the share scope and the caps.
   */
  private onSubscribe(message: SubscribeMessage): void {
    const { topic, id } = message;
    const person = this.personBucket();
    const waitMs = Math.max(this.rate.waitMs(), person?.waitMs() ?? 0);
    if (waitMs > 0) return this.replyRateLimited(waitMs, id);
    this.charge(1, person);
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
      // Already subscribed: re-subscribing replays the current state (the channel's producer is
      // opened once more for this socket alone: no ZooKeeper call, no new count).
      this.charge(subscribeUnits(existing.membership.replay()) - 1, person);
      if (id) this.send({ type: 'ack', id });
      return;
    }
    const refusal = this.admitSubscription(producer.addsWatch?.(ensemble, params as never) ?? false);
    if (refusal) return this.replyError('tooManySubscriptions', refusal, id);
    const counted = this.ctx.budgets !== undefined;
    let joined: ReturnType<TopicChannels['join']>;
    try {
      joined = this.fanOut.channels.join({ topic, producer, ensemble, params, role: this.identity.role, scope: this.identity.shareScope ?? null }, this.member);
    } catch (error) {
      if (counted) this.ctx.budgets?.subscriptions.give(this.holder);
      throw error;
    }
    this.subscriptions.set(key, { membership: joined.membership, counted });
    this.charge(subscribeUnits(joined.freshBytes) - 1, person);
    if (id) this.send({ type: 'ack', id });
  }

  private get holder() {
    return { identity: this.identity, person: this.person };
  }

  /** The person's subscribe rate, shared by its sockets (none in the open development mode, where everyone is one person). */
  private personBucket(): TokenBucket | null {
    const persons = this.ctx.budgets?.persons;
    return persons && this.identity.via !== 'open' ? persons.of(this.person) : null;
  }

  private charge(units: number, person: TokenBucket | null): void {
    if (units <= 0) return;
    this.rate.charge(units);
    person?.charge(units);
  }

  private replyRateLimited(waitMs: number, id?: string): void {
    const perSecond = this.ctx.limits.subscribesPerSecond ?? DEFAULT_HUB_LIMITS.subscribesPerSecond;
    this.send({
      type: 'error',
      code: 'rateLimited',
      message: `too many subscribes (about ${perSecond} a second per tab, fewer for topics that cost more to send): retry in ${Math.ceil(waitMs / 100) / 10} s`,
      retryAfterMs: waitMs,
      ...(id !== undefined ? { id } : {}),
    });
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
    return subscriptionRefusal(budgets.subscriptions.take(this.holder), this.identity);
  }

  private release(sub: Subscription): void {
    sub.membership.leave();
    if (sub.counted) this.ctx.budgets?.subscriptions.give(this.holder);
    sub.counted = false;
  }

  /** An event of one of this socket's channels: queued, or refused when no socket could carry it. */
  private deliver(event: SharedEvent, live: boolean): void {
    if (this.closed) return;
    if (event.bytes + BATCH_OVERHEAD > this.ctx.limits.maxBufferedBytes) {
      const { topic, ensemble, params } = event.envelope;
      this.send({
        type: 'error',
        code: 'tooLarge',
        message: `${topic} ${JSON.stringify(params)}: an update of ${event.bytes} bytes, more than the ${this.ctx.limits.maxBufferedBytes} a socket may carry (limits.socketBufferKiB); it was not sent`,
        subscription: { topic, ensemble, params },
      });
      return;
    }
    if (live && this.ctx.observePush) this.timed.add(event);
    this.outbox.push(event);
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

  private pong(): void {
    const now = Date.now();
    if (now - this.writer.lastSentAt < PONG_NOT_NEEDED_MS) return;
    this.send({ type: 'pong', at: now });
  }

  private replyError(code: ErrorCode, message: string, id?: string): void {
    this.send({ type: 'error', code, message, ...(id !== undefined ? { id } : {}) });
  }

  private send(message: ServerMessage): void {
    if (this.closed) return;
    this.writer.control(JSON.stringify(message));
  }
}

/** The sentence for a subscription past a cap; null when it was taken. */
function subscriptionRefusal(verdict: CapVerdict, identity: Identity): string | null {
  if (verdict.ok) return null;
  const { name } = identity;
  switch (verdict.cap) {
    case 'person':
      return `at most ${verdict.limit} subscriptions for ${name} in one browser (or from one address), across its tabs: close views or tabs you do not need`;
    case 'identity':
      return `at most ${verdict.limit} subscriptions for ${name} across all its tabs: close views or tabs you do not need`;
    case 'shareLinks':
      return `share links together hold their maximum of ${verdict.limit} subscriptions: try again when others close views`;
    case 'total':
      return `the server holds its maximum of ${verdict.limit} subscriptions${identity.role !== 'admin' && verdict.reservedForAdmins > 0 ? ` (${verdict.reservedForAdmins} more are kept for admins)` : ''}: try again when others close views`;
  }
}
