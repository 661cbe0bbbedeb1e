/** Accepts WebSocket upgrades on /ws and fans gateway session changes out to every browser. */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MAX_CLIENT_FRAME_BYTES, type JobSnapshot } from '@keeper/shared';
import type { Identity } from '../auth/identity.js';
import { ClientConnection, type HubContext } from './clientConnection.js';

/**
 * Decides whether an upgrade may proceed, before the handshake: who is asking (cookie, bearer,
 * share session) and from which Origin. Without one, every socket is the open-mode admin.
 */
export type UpgradeAuthorizer = (request: IncomingMessage) => { ok: true; identity: Identity } | { ok: false; status: 401 | 403; reason: string };

export const WS_PATH = '/ws';

export class SocketHub {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<ClientConnection>();
  private readonly detach: (() => void)[] = [];

  constructor(
    private readonly ctx: HubContext,
    private readonly authorize?: UpgradeAuthorizer,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
    this.wss.on('connection', (socket, request: IncomingMessage & { keeperIdentity?: Identity }) => {
      const connection = new ClientConnection(socket, ctx, request.keeperIdentity, request.socket.remoteAddress);
      this.connections.add(connection);
      socket.on('close', () => this.connections.delete(connection));
    });
    for (const gateway of ctx.gateways.values()) {
      const onSession = () => {
        for (const connection of this.connections) connection.pushEvent({ type: 'session', ensemble: gateway.name, session: gateway.session });
      };
      gateway.on('session', onSession);
      this.detach.push(() => gateway.off('session', onSession));
    }
  }

  get browserCount(): number {
    return this.connections.size;
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

  /** Job progress goes to admins only: viewers cannot start or cancel jobs. */
  pushJob(job: JobSnapshot): void {
    for (const connection of this.connections) if (connection.identity.role === 'admin') connection.pushEvent({ type: 'job', job });
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
          socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
          return;
        }
        (request as IncomingMessage & { keeperIdentity?: Identity }).keeperIdentity = verdict.identity;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit('connection', ws, request));
    });
  }

  close(): void {
    for (const off of this.detach) off();
    for (const connection of this.connections) connection.dispose();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
