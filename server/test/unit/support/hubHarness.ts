/**
 * What hub unit tests drive a ClientConnection with: an in-memory socket that parses what it is
 * sent with the shared schema (and can stop reading), stand-in producers that record who they
 * feed, a fake ensemble, and a hub-like context shared by several connections (channels, flush
 * passes, the unsent-bytes ledger, caps and rates) without a server or ZooKeeper.
 */
import pino from 'pino';
import { PROTOCOL_VERSION, serverMessageSchema, type ServerMessage, type TopicEvent, type TopicName } from '@keeper/shared';
import { ClientConnection, type HubContext } from '../../../src/hub/clientConnection.js';
import type { SocketLike } from '../../../src/hub/socketLike.js';
import { Ensembles } from '../../../src/ensemble/ensembles.js';
import type { Ensemble } from '../../../src/ensemble/ensemble.js';
import type { Identity } from '../../../src/auth/identity.js';
import type { Subscriber, TopicProducer, TopicProducers } from '../../../src/topics/topicProducer.js';
import { CappedCounter } from '../../../src/hub/cappedCounter.js';
import { DEFAULT_HUB_LIMITS, type HubLimits } from '../../../src/hub/hubLimits.js';
import { TopicChannels } from '../../../src/hub/topicChannels.js';
import { FlushScheduler } from '../../../src/hub/flushScheduler.js';
import { FrameLedger } from '../../../src/hub/frameWriter.js';
import { PersonBuckets } from '../../../src/hub/subscribeRate.js';

/**
 * The server's end of an in-memory socket; what it sends is parsed with the shared schema, as a
 * browser would. A socket that stops reading keeps what it is sent unwritten (its write callbacks
 * wait) until it reads again.
 */
export class MemorySocket implements SocketLike {
  readonly OPEN = 1;
  readyState = 1;
  readonly received: ServerMessage[] = [];
  /** Every Buffer handed to send, in order: the same object for two sockets means the bytes were shared. */
  readonly sent: Buffer[] = [];
  closed: { code?: number; reason?: string } | null = null;
  private reading = true;
  private readonly unread: (() => void)[] = [];
  private readonly listeners = {
    message: [] as ((data: Buffer, isBinary: boolean) => void)[],
    close: [] as (() => void)[],
    error: [] as ((e: Error) => void)[],
  };

  send(data: Buffer, _options: { binary: false }, written: (error?: Error) => void): void {
    this.sent.push(data);
    const take = () => this.received.push(serverMessageSchema.parse(JSON.parse(data.toString('utf8'))));
    if (this.reading) {
      take();
      queueMicrotask(() => written());
    } else
      this.unread.push(() => {
        take();
        written();
      });
  }
  stopReading(): void {
    this.reading = false;
  }
  /** Reads everything sent so far, and keeps reading. */
  read(): void {
    this.reading = true;
    for (const take of this.unread.splice(0)) take();
  }
  close(code?: number, reason?: string): void {
    if (this.closed) return;
    this.closed = { ...(code !== undefined ? { code } : {}), ...(reason !== undefined ? { reason } : {}) };
    this.readyState = 3;
    for (const l of this.listeners.close) l();
  }
  terminate(): void {
    this.close();
  }
  on(event: 'message' | 'close' | 'error', listener: never): unknown {
    (this.listeners[event] as unknown[]).push(listener);
    return this;
  }
  /** What the browser sends. */
  deliver(message: unknown): void {
    for (const l of this.listeners.message) l(Buffer.from(JSON.stringify(message)), false);
  }
  errors(): Extract<ServerMessage, { type: 'error' }>[] {
    return this.received.filter((m): m is Extract<ServerMessage, { type: 'error' }> => m.type === 'error');
  }
  events() {
    return this.received.flatMap((m) => (m.type === 'batch' ? m.events : []));
  }
}

/** A producer that records who it feeds, so a test can emit to them and see them stop. */
export function standIn<T extends TopicName>(topic: T, first?: TopicEvent<T>) {
  const open = new Set<Subscriber<T>>();
  let opened = 0;
  const producer: TopicProducer<T> = {
    topic,
    open(subscriber) {
      opened++;
      open.add(subscriber);
      if (first) subscriber.emit(first);
      return () => open.delete(subscriber);
    },
  };
  return {
    producer,
    emit: (event: TopicEvent<T>) => open.forEach((s) => s.emit(event)),
    get live() {
      return open.size;
    },
    get opened() {
      return opened;
    },
  };
}

export const session = {
  state: 'connected' as const,
  sessionId: '0x1',
  member: 'm1:2181',
  since: 1,
  timeoutMs: 30_000,
  sessionsOpened: 1,
  confirmedAt: 1,
  establishedAt: 1,
  timeline: [],
};
export const stat = {
  czxid: '0x1',
  mzxid: '0x1',
  pzxid: '0x1',
  ctime: 1,
  mtime: 1,
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 1,
  numChildren: 0,
};

export function fakeEnsemble(name: string): Ensemble {
  return { name, summary: () => ({ name, connectionString: 'h:2181', session }) } as unknown as Ensemble;
}

export type StandIn<T extends TopicName> = ReturnType<typeof standIn<T>>;

/** Every topic's stand-in, with a first event for the znode and consoleSession topics. */
export function standIns() {
  const topics = {
    znode: standIn('znode', { kind: 'state', node: { exists: true, stat, data: { encoding: 'utf8', value: 'v', size: 1, truncated: false } }, at: 1 }),
    consoleSession: standIn('consoleSession', { session }),
    ensembleHealth: standIn('ensembleHealth'),
    jobs: standIn('jobs'),
    locks: standIn('locks'),
    lock: standIn('lock'),
    upgrade: standIn('upgrade'),
    reconfig: standIn('reconfig'),
    ensembleEvents: standIn('ensembleEvents'),
  };
  const producers: TopicProducers = {
    znode: topics.znode.producer,
    consoleSession: topics.consoleSession.producer,
    ensembleHealth: topics.ensembleHealth.producer,
    jobs: topics.jobs.producer,
    locks: topics.locks.producer,
    lock: topics.lock.producer,
    upgrade: topics.upgrade.producer,
    reconfig: topics.reconfig.producer,
    ensembleEvents: topics.ensembleEvents.producer,
  };
  return { ...topics, producers };
}

/**
 * Connections that share what a SocketHub shares (channels, flush passes, the ledger, caps,
 * person rates), with `limits` over the hub's defaults.
 */
export class HubHarness {
  readonly limits: HubLimits;
  readonly ctx: HubContext;
  readonly topics = standIns();
  readonly connections: ClientConnection[] = [];
  tooSlow = 0;

  constructor(limits: Partial<HubLimits> = {}, producers?: Partial<TopicProducers>) {
    this.limits = { ...DEFAULT_HUB_LIMITS, batchIntervalMs: 5, ...limits };
    const l = this.limits;
    this.ctx = {
      ensembles: new Ensembles([fakeEnsemble('prod'), fakeEnsemble('test')]),
      producers: { ...this.topics.producers, ...producers },
      serverVersion: 'test',
      log: pino({ level: 'silent' }),
      limits: l,
      fanOut: { channels: new TopicChannels(), scheduler: new FlushScheduler(), ledger: new FrameLedger(l.maxBufferedBytesTotal) },
      budgets: {
        subscriptions: new CappedCounter({
          perPerson: l.maxSubscriptionsPerPerson,
          perIdentity: l.maxSubscriptionsPerIdentity,
          shareLinks: l.maxSubscriptionsForShareLinks,
          reservedForAdmins: l.subscriptionsReservedForAdmins,
          total: l.maxSubscriptionsTotal,
        }),
        mayWatchAnotherPath: () => true,
        maxWatchedPaths: l.maxWatchedPaths,
        persons: new PersonBuckets(l.subscribesPerSecondPerPerson),
        noteTooSlow: () => this.tooSlow++,
      },
    };
  }

  get ledger(): FrameLedger {
    return this.ctx.fanOut!.ledger;
  }

  connect(identity: Identity, person = `person-of-${identity.name}`): { socket: MemorySocket; connection: ClientConnection } {
    const socket = new MemorySocket();
    const connection = new ClientConnection(socket, this.ctx, identity, person);
    this.connections.push(connection);
    socket.deliver({ type: 'hello', protocolVersion: PROTOCOL_VERSION });
    return { socket, connection };
  }

  dispose(): void {
    for (const c of this.connections.splice(0)) c.dispose();
  }
}

/** Lets queued flushes (setImmediate) and write callbacks (microtasks) run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Waits (a loaded machine may be slow) until `condition` holds; fails after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
