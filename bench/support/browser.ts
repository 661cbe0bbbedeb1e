/**
 * A headless "browser": one WebSocket speaking Keeper's protocol, keeping only what the
 * benches need (frames and bytes received, the last value seen per znode) so a hundred of
 * them stay cheap.
 */
import WebSocket from 'ws';
import { PROTOCOL_VERSION, type ServerMessage, type TopicName, type TopicParams } from '@keeper/shared';

/** The value a znode event carries: utf8 text, or null when the znode does not exist. */
export type SeenValue = string | null;

export class BenchBrowser {
  frames = 0;
  bytes = 0;
  znodeEvents = 0;
  errors: string[] = [];
  readonly values = new Map<string, SeenValue>();
  /** Called for every znode event, with the time the frame was read (performance.now()). */
  onZnode: ((path: string, value: SeenValue, at: number) => void) | null = null;

  private constructor(private readonly socket: WebSocket) {}

  static open(keeperUrl: string, timeoutMs = 10_000): Promise<BenchBrowser> {
    const socket = new WebSocket(`${keeperUrl.replace(/^http/, 'ws')}/ws`);
    const browser = new BenchBrowser(socket);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`no welcome from ${keeperUrl} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION })));
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        const at = performance.now();
        if (isBinary) return;
        const message = browser.receive(data, at);
        if (message?.type === 'welcome') {
          clearTimeout(timer);
          resolve(browser);
        }
      });
    });
  }

  /** Follows a live topic: `znode` {path} for a tree view, `ensembleHealth` {} for the ensemble view (pushed after every poll). */
  subscribe<T extends TopicName>(topic: T, ensemble: string, params: TopicParams<T>): void {
    this.socket.send(JSON.stringify({ type: 'subscribe', topic, ensemble, params }));
  }

  resetCounters(): void {
    this.frames = 0;
    this.bytes = 0;
    this.znodeEvents = 0;
  }

  close(): void {
    this.onZnode = null;
    this.socket.terminate();
  }

  private receive(data: Buffer, at: number): ServerMessage | null {
    this.frames++;
    this.bytes += data.length;
    const message = JSON.parse(data.toString('utf8')) as ServerMessage;
    if (message.type === 'error') this.errors.push(`${message.code}: ${message.message}`);
    if (message.type !== 'batch') return message;
    for (const { topic, params, event } of message.events) {
      if (topic !== 'znode') continue;
      if (event.kind === 'error') this.errors.push(`${params.path}: ${event.message}`);
      if (event.kind !== 'state') continue;
      this.znodeEvents++;
      const value = event.node.exists ? event.node.data.value : null;
      this.values.set(params.path, value);
      this.onZnode?.(params.path, value, at);
    }
    return message;
  }
}
