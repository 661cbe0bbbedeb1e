/** Accepts WebSocket upgrades on /ws and fans gateway session changes out to every browser. */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MAX_CLIENT_FRAME_BYTES } from '@keeper/shared';
import { ClientConnection, type HubContext } from './clientConnection.js';

export const WS_PATH = '/ws';

export class SocketHub {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<ClientConnection>();
  private readonly detach: (() => void)[] = [];

  constructor(private readonly ctx: HubContext) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
    this.wss.on('connection', (socket) => {
      const connection = new ClientConnection(socket, ctx);
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

  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname !== WS_PATH) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
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
