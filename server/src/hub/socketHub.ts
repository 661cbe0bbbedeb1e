/**
 * Accepts WebSocket upgrades on /ws and hands each socket to a ClientConnection, which routes
 * its topic subscriptions to the producers. It holds the caps across sockets (hubLimits.ts): open sockets per identity and in total (a
 * socket past either is closed with CLOSE_TOO_MANY_SOCKETS and a sentence), subscriptions per
 * identity and in total, distinct watched paths, and unsent bytes across every socket.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_CLIENT_FRAME_BYTES } from '@keeper/shared';
import { OPEN_IDENTITY, type Identity } from '../auth/identity.js';
import type { UpgradeAuthorizer } from '../auth/socketGate.js';
import { ClientConnection, type HubContext } from './clientConnection.js';
import { CappedCounter } from './cappedCounter.js';
import { BUFFER_SWEEP_INTERVAL_MS, CLOSE_GRACE_MS, CLOSE_TOO_MANY_SOCKETS, DEFAULT_HUB_LIMITS, type HubLimits } from './hubLimits.js';

export interface HubStats {
  sockets: number;
  subscriptions: number;
  watchedPaths: number;
  bufferedBytes: number;
  refusedSockets: number;
  droppedTooSlow: number;
}

export const WS_PATH = '/ws';

export class SocketHub {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<ClientConnection>();
  readonly limits: HubLimits;
  private readonly sockets: CappedCounter;
  private readonly subscriptions: CappedCounter;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly ensembles: HubContext['ensembles'];
  private refusedSockets = 0;
  private droppedTooSlow = 0;

  constructor(
    ctx: HubContext,
    private readonly authorize?: UpgradeAuthorizer,
  ) {
    this.ensembles = ctx.ensembles;
    this.limits = { ...DEFAULT_HUB_LIMITS, ...definedOnly(ctx.limits) };
    this.sockets = new CappedCounter(this.limits.maxSocketsPerIdentity, this.limits.maxSockets);
    this.subscriptions = new CappedCounter(this.limits.maxSubscriptionsPerIdentity, this.limits.maxSubscriptionsTotal);
    const connectionCtx: HubContext = {
      ...ctx,
      limits: this.limits,
      budgets: {
        subscriptions: this.subscriptions,
        mayWatchAnotherPath: () => this.watchedPaths < this.limits.maxWatchedPaths,
        maxWatchedPaths: this.limits.maxWatchedPaths,
        noteTooSlow: () => this.droppedTooSlow++,
      },
    };
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
    this.wss.on('connection', (socket, request: IncomingMessage & { keeperIdentity?: Identity }) => {
      const identity = request.keeperIdentity ?? OPEN_IDENTITY;
      const verdict = this.sockets.take(identity);
      if (!verdict.ok) {
        this.refuse(
          socket,
          verdict.cap === 'identity'
            ? `too many tabs: at most ${verdict.limit} open for ${identity.name}; close one`
            : `the server has its maximum of ${verdict.limit} open tabs; try again later`,
        );
        return;
      }
      const connection = new ClientConnection(socket, connectionCtx, identity);
      this.connections.add(connection);
      socket.once('close', () => {
        this.connections.delete(connection);
        this.sockets.give(identity);
      });
    });
    this.sweepTimer = setInterval(() => this.sweepBuffers(), BUFFER_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  get browserCount(): number {
    return this.connections.size;
  }

  /** Distinct paths watched in ZooKeeper, all ensembles together. */
  get watchedPaths(): number {
    let n = 0;
    for (const ensemble of this.ensembles) n += ensemble.gateway.watches.watchedPaths;
    return n;
  }

  get stats(): HubStats {
    let bufferedBytes = 0;
    for (const connection of this.connections) bufferedBytes += connection.bufferedBytes;
    return {
      sockets: this.sockets.count,
      subscriptions: this.subscriptions.count,
      watchedPaths: this.watchedPaths,
      bufferedBytes,
      refusedSockets: this.refusedSockets,
      droppedTooSlow: this.droppedTooSlow,
    };
  }

  /** Closes every socket whose identity matches (share link revoked, session ended). */
  closeWhere(match: (identity: Identity) => boolean, code: number, reason: string): number {
    let closed = 0;
    for (const connection of this.connections) {
      if (!match(connection.identity)) continue;
      connection.end(code, reason);
      this.connections.delete(connection);
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
      if (this.authorize) {
        const verdict = this.authorize(request);
        if (!verdict.ok) {
          // Refused before the handshake: a browser sees a failed connection, never a socket.
          const status = verdict.status === 401 ? '401 Unauthorized' : '403 Forbidden';
          const body = `${verdict.reason}\n`;
          socket.end(
            `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          return;
        }
        (request as IncomingMessage & { keeperIdentity?: Identity }).keeperIdentity = verdict.identity;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit('connection', ws, request));
    });
  }

  /** A socket past a cap: told why with a code the browser reads as "close a tab", then cut if it does not finish closing. */
  private refuse(socket: WebSocket, reason: string): void {
    this.refusedSockets++;
    socket.close(CLOSE_TOO_MANY_SOCKETS, reason.slice(0, 120));
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** Past the total of unsent bytes, the sockets holding most are closed until the rest fit. */
  private sweepBuffers(): void {
    let total = 0;
    const holding: ClientConnection[] = [];
    for (const connection of this.connections) {
      const buffered = connection.bufferedBytes;
      if (buffered === 0) continue;
      total += buffered;
      holding.push(connection);
    }
    if (total <= this.limits.maxBufferedBytesTotal) return;
    holding.sort((a, b) => b.bufferedBytes - a.bufferedBytes);
    for (const connection of holding) {
      if (total <= this.limits.maxBufferedBytesTotal) break;
      total -= connection.bufferedBytes;
      connection.dropTooSlow();
      this.connections.delete(connection);
    }
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
