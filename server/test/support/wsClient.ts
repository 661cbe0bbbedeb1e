/** A test browser: a raw WebSocket speaking Keeper's protocol, recording every message. */
import WebSocket from 'ws';
import { PROTOCOL_VERSION, serverMessageSchema, type ServerEvent, type ServerMessage } from '@keeper/shared';
import { waitFor } from './waitFor.js';

export class TestBrowser {
  readonly messages: ServerMessage[] = [];
  closeCode: number | null = null;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      // Every server message must match the shared schema: a drift fails the test here.
      this.messages.push(serverMessageSchema.parse(JSON.parse(data.toString())));
    });
    socket.on('close', (code) => {
      this.closeCode = code;
    });
  }

  static async open(url: string, { hello = true, headers = {} as Record<string, string> } = {}): Promise<TestBrowser> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      // A refused upgrade: the status the server answered, for the test to check.
      socket.once('unexpected-response', (req, res) => {
        req.destroy();
        reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode }));
      });
    });
    const browser = new TestBrowser(socket);
    if (hello) {
      browser.send({ type: 'hello', protocolVersion: PROTOCOL_VERSION });
      await browser.next((m) => m.type === 'welcome');
    }
    return browser;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  get events(): ServerEvent[] {
    return this.messages.flatMap((m) => (m.type === 'batch' ? m.events : []));
  }

  next<T extends ServerMessage>(match: (m: ServerMessage) => m is T, timeoutMs?: number): Promise<T>;
  next(match: (m: ServerMessage) => boolean, timeoutMs?: number): Promise<ServerMessage>;
  next(match: (m: ServerMessage) => boolean, timeoutMs = 5_000): Promise<ServerMessage> {
    return waitFor(() => this.messages.find(match), { timeoutMs, what: 'a matching server message' }) as Promise<ServerMessage>;
  }

  lastZnode(ensemble: string, path: string) {
    return this.events.filter((e) => e.type === 'znode' && e.ensemble === ensemble && e.path === path).at(-1);
  }

  close(): void {
    this.socket.close();
  }
}
