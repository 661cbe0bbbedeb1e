/**
 * Accepts WebSocket upgrades on /ws and hands each socket to a ClientConnection, which routes
 * its topic subscriptions to the channels. It holds what is shared across sockets: the caps
 * (hubLimits.ts) on open sockets and subscriptions per person, per identity, for share links and
 * in total with a reserve for admins (a socket past one is closed with CLOSE_TOO_MANY_SOCKETS and
 * a sentence); the subscribe rate per person; distinct watched paths; the channels (one producer
 * and one serialization per event for every socket); one flush pass per tick; and the unsent
 * bytes across every socket, a shared frame counted once.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_CLIENT_FRAME_BYTES } from '@keeper/shared';
import { OPEN_IDENTITY, type Identity } from '../auth/identity.js';
import type { UpgradeAuthorizer } from '../auth/socketGate.js';
import { ClientConnection, type HubContext, type SharedFanOut } from './clientConnection.js';
import { CappedCounter, type CapVerdict, type Holder } from './cappedCounter.js';
import { BUFFER_SWEEP_INTERVAL_MS, CLOSE_GRACE_MS, CLOSE_TOO_MANY_SOCKETS, DEFAULT_HUB_LIMITS, type HubLimits } from './hubLimits.js';
import { TopicChannels } from './topicChannels.js';
import { FlushScheduler } from './flushScheduler.js';
import { FrameLedger } from './frameWriter.js';
import { PersonBuckets } from './subscribeRate.js';

export interface HubStats {
  sockets: number;
  subscriptions: number;
  /** Channels open: distinct (topic, ensemble, parameters, role) followed by someone. */
  channels: number;
  watchedPaths: number;
  /** Unsent bytes summed per socket (a frame shared by ten sockets counts ten times). */
  bufferedBytes: number;
  /** The most unsent bytes one socket holds. */
  largestBufferedBytes: number;
  /** Unsent bytes as memory: a shared frame counts once. */
  distinctBufferedBytes: number;
  refusedSockets: number;
  droppedTooSlow: number;
  /** Times a socket fell behind, dropped its queued events and was told to resync. */
  resyncs: number;
}

export const WS_PATH = '/ws';

type UpgradeRequest = IncomingMessage & { keeperIdentity?: Identity; keeperPerson?: string };

export class SocketHub {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<ClientConnection>();
  readonly limits: HubLimits;
  private readonly sockets: CappedCounter;
  private readonly subscriptions: CappedCounter;
  private readonly persons: PersonBuckets;
  private readonly fanOut: SharedFanOut;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly ensembles: HubContext['ensembles'];
  private refusedSockets = 0;
  private droppedTooSlow = 0;
  private pastResyncs = 0;
  private pushObserver: ((seconds: number) => void) | null = null;

  constructor(
    ctx: HubContext,
    private readonly authorize?: UpgradeAuthorizer,
  ) {
    this.ensembles = ctx.ensembles;
    const limits = { ...DEFAULT_HUB_LIMITS, ...definedOnly(ctx.limits) };
    this.limits = limits;
    this.sockets = new CappedCounter({
      perPerson: limits.maxSocketsPerPerson,
      perIdentity: limits.maxSocketsPerIdentity,
      shareLinks: limits.maxSocketsForShareLinks,
      reservedForAdmins: limits.socketsReservedForAdmins,
      total: limits.maxSockets,
    });
    this.subscriptions = new CappedCounter({
      perPerson: limits.maxSubscriptionsPerPerson,
      perIdentity: limits.maxSubscriptionsPerIdentity,
      shareLinks: limits.maxSubscriptionsForShareLinks,
      reservedForAdmins: limits.subscriptionsReservedForAdmins,
      total: limits.maxSubscriptionsTotal,
    });
    this.persons = new PersonBuckets(limits.subscribesPerSecondPerPerson);
    this.fanOut = { channels: new TopicChannels(), scheduler: new FlushScheduler(), ledger: new FrameLedger(limits.maxBufferedBytesTotal) };
    const connectionCtx: HubContext = {
      ...ctx,
      limits,
      fanOut: this.fanOut,
      observePush: (seconds) => this.pushObserver?.(seconds),
      budgets: {
        subscriptions: this.subscriptions,
        mayWatchAnotherPath: () => this.watchedPaths < limits.maxWatchedPaths,
        maxWatchedPaths: limits.maxWatchedPaths,
        persons: this.persons,
        noteTooSlow: () => this.droppedTooSlow++,
      },
    };
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, perMessageDeflate: false });
    this.wss.on('connection', (socket, request: UpgradeRequest) => {
      const identity = request.keeperIdentity ?? OPEN_IDENTITY;
      const holder: Holder = { identity, person: request.keeperPerson ?? 'open' };
      const verdict = this.sockets.take(holder);
      if (!verdict.ok) {
        this.refuse(socket, socketRefusal(verdict, identity));
        return;
      }
      const connection = new ClientConnection(socket, connectionCtx, identity, holder.person);
      this.connections.add(connection);
      socket.once('close', () => {
        this.forget(connection);
        this.sockets.give(holder);
      });
    });
    this.sweepTimer = setInterval(() => this.sweep(), BUFFER_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  get browserCount(): number {
    return this.connections.size;
  }

  /** Subscriptions per ensemble name (keeper_subscriptions). */
  subscriptionsByEnsemble(): Map<string, number> {
    return this.fanOut.channels.subscriptionsByEnsemble();
  }

  /** Hears each live event's seconds from its channel to a socket (keeper_push_seconds); one listener. */
  onPush(listener: (seconds: number) => void): void {
    this.pushObserver = listener;
  }

  /** Distinct paths watched in ZooKeeper, all ensembles together. */
  get watchedPaths(): number {
    let n = 0;
    for (const ensemble of this.ensembles) n += ensemble.gateway.watches.watchedPaths;
    return n;
  }

  get stats(): HubStats {
    let bufferedBytes = 0;
    let largestBufferedBytes = 0;
    let resyncs = this.pastResyncs;
    for (const connection of this.connections) {
      bufferedBytes += connection.bufferedBytes;
      largestBufferedBytes = Math.max(largestBufferedBytes, connection.bufferedBytes);
      resyncs += connection.resyncs;
    }
    return {
      sockets: this.sockets.count,
      subscriptions: this.subscriptions.count,
      channels: this.fanOut.channels.size,
      watchedPaths: this.watchedPaths,
      bufferedBytes,
      largestBufferedBytes,
      distinctBufferedBytes: this.fanOut.ledger.total,
      refusedSockets: this.refusedSockets,
      droppedTooSlow: this.droppedTooSlow,
      resyncs,
    };
  }

  /** Closes every socket whose identity matches (share link revoked, session ended). */
  closeWhere(match: (identity: Identity) => boolean, code: number, reason: string): number {
    let closed = 0;
    for (const connection of this.connections) {
      if (!match(connection.identity)) continue;
      connection.end(code, reason);
      this.forget(connection);
      closed++;
    }
    return closed;
  }

  countWhere(match: (identity: Identity) => boolean): number {
    let n = 0;
    for (const connection of this.connections) if (match(connection.identity)) n++;
    return n;
  }

  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname !== WS_PATH) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      if (!this.authorize) return this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit('connection', ws, request));
      void Promise.resolve(this.authorize(request)).then(
        (verdict) => {
          // The client may have gone while its session was read from the home ensemble.
          if (socket.destroyed) return;
          if (!verdict.ok) {
            // Refused before the handshake: a browser sees a failed connection, never a socket.
            const status = verdict.status === 401 ? '401 Unauthorized' : verdict.status === 503 ? '503 Service Unavailable' : '403 Forbidden';
            const body = `${verdict.reason}\n`;
            socket.end(
              `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
            );
            return;
          }
          (request as UpgradeRequest).keeperIdentity = verdict.identity;
          (request as UpgradeRequest).keeperPerson = verdict.person;
          this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit('connection', ws, request));
        },
        () => socket.destroy(),
      );
    });
  }

  /** A socket past a cap: told why with a code the browser reads as "close a tab", then cut if it does not finish closing. */
  private refuse(socket: WebSocket, reason: string): void {
    this.refusedSockets++;
    socket.close(CLOSE_TOO_MANY_SOCKETS, reason.slice(0, 120));
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  private forget(connection: ClientConnection): void {
    if (!this.connections.delete(connection)) return;
    this.pastResyncs += connection.resyncs;
  }

  /**
   * Once a second: a socket that took none of its unsent bytes for `stallMs` is closed as too
   * slow; when the unsent bytes of all sockets (shared frames once) near their total, the sockets
   * holding most that made no progress lately are closed until half the total is free; idle
   * persons' rate buckets are forgotten.
   */
  private sweep(): void {
    const now = Date.now();
    for (const connection of this.connections) {
      if (!connection.stalled(now, this.limits.stallMs)) continue;
      connection.dropTooSlow();
      this.forget(connection);
    }
    const ledger = this.fanOut.ledger;
    if (ledger.total > ledger.max * 0.75) {
      const holding = [...this.connections].filter((c) => c.stalled(now, BUFFER_SWEEP_INTERVAL_MS)).sort((a, b) => b.bufferedBytes - a.bufferedBytes);
      for (const connection of holding) {
        if (ledger.total <= ledger.max / 2) break;
        connection.dropTooSlow();
        this.forget(connection);
      }
    }
    this.persons.sweep();
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const connection of this.connections) connection.dispose();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}

/** Settings left undefined keep their defaults. */
function definedOnly<T extends object>(settings: T): Partial<T> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The close reason for a socket past a cap (at most 120 characters are sent). */
function socketRefusal(verdict: Exclude<CapVerdict, { ok: true }>, identity: Identity): string {
  switch (verdict.cap) {
    case 'person':
      return `too many tabs: at most ${verdict.limit} open in one browser for ${identity.name}; close one`;
    case 'identity':
      return `too many tabs: at most ${verdict.limit} open for ${identity.name}; close one`;
    case 'shareLinks':
      return `share links have their maximum of ${verdict.limit} open tabs; try again later`;
    case 'total':
      return identity.role === 'admin' || verdict.reservedForAdmins === 0
        ? `the server has its maximum of ${verdict.limit} open tabs; try again later`
        : `the server has its maximum of ${verdict.limit} open tabs (${verdict.reservedForAdmins} more kept for admins); try again later`;
  }
}
