/** A test browser: a raw WebSocket speaking Keeper's protocol, recording every message. */
import WebSocket from 'ws';
import {
  PROTOCOL_VERSION,
  applyChildrenDiff,
  serverMessageSchema,
  type ServerEvent,
  type ServerMessage,
  type TopicMessageOf,
  type TopicName,
  type TopicParams,
  type ZnodeEvent,
} from '@keeper/shared';
import { waitFor } from './waitFor.js';

export type ErrorMessage = Extract<ServerMessage, { type: 'error' }>;

export class TestBrowser {
  readonly messages: ServerMessage[] = [];
  closeCode: number | null = null;
  private nextId = 1;

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

  subscribe<T extends TopicName>(topic: T, ensemble: string, params: TopicParams<T>, id?: string): void {
    this.send({ type: 'subscribe', topic, ensemble, params, ...(id !== undefined ? { id } : {}) });
  }

  unsubscribe<T extends TopicName>(topic: T, ensemble: string, params: TopicParams<T>, id?: string): void {
    this.send({ type: 'unsubscribe', topic, ensemble, params, ...(id !== undefined ? { id } : {}) });
  }

  /** Subscribes and waits for the server's acknowledgement (or fails with the error it answered). */
  async subscribed<T extends TopicName>(topic: T, ensemble: string, params: TopicParams<T>, id = `sub-${this.nextId++}`): Promise<void> {
    this.subscribe(topic, ensemble, params, id);
    const answer = await this.next((m) => (m.type === 'ack' || m.type === 'error') && m.id === id);
    if (answer.type === 'error') throw new Error(`subscribe ${topic} refused: ${answer.code}: ${answer.message}`);
  }

  get events(): ServerEvent[] {
    return this.messages.flatMap((m) => (m.type === 'batch' ? m.events : []));
  }

  /** Every event of one topic (of one ensemble, if named), in order. */
  topicEvents<T extends TopicName>(topic: T, ensemble?: string): TopicMessageOf<T>[] {
    return this.events.filter((e): e is TopicMessageOf<T> => e.topic === topic && (ensemble === undefined || e.ensemble === ensemble));
  }

  /** The events of the `znode` subscription to one path, in order. */
  znodeEvents(ensemble: string, path: string): ZnodeEvent[] {
    return this.topicEvents('znode', ensemble)
      .filter((e) => e.params.path === path)
      .map((e) => e.event);
  }

  /** The last state of a znode this browser was sent. */
  lastZnode(ensemble: string, path: string): Extract<ZnodeEvent, { kind: 'state' }> | undefined {
    return this.znodeEvents(ensemble, path)
      .filter((e): e is Extract<ZnodeEvent, { kind: 'state' }> => e.kind === 'state')
      .at(-1);
  }

  /** A znode's children as this browser knows them: the last full list (whole, or its pages) with the diffs since, sorted. */
  childrenOf(ensemble: string, path: string): string[] {
    let names: string[] = [];
    let paging: string[] = [];
    for (const e of this.znodeEvents(ensemble, path)) {
      if (e.kind !== 'children') continue;
      if (e.mode === 'page') {
        paging = e.offset === 0 ? [...e.names] : [...paging, ...e.names];
        if (e.last) names = paging;
      } else names = e.mode === 'full' ? [...e.names] : applyChildrenDiff(names, e);
    }
    return names.sort();
  }

  errors(): ErrorMessage[] {
    return this.messages.filter((m): m is ErrorMessage => m.type === 'error');
  }

  next<T extends ServerMessage>(match: (m: ServerMessage) => m is T, timeoutMs?: number): Promise<T>;
  next(match: (m: ServerMessage) => boolean, timeoutMs?: number): Promise<ServerMessage>;
  next(match: (m: ServerMessage) => boolean, timeoutMs = 5_000): Promise<ServerMessage> {
    return waitFor(() => this.messages.find(match), { timeoutMs, what: 'a matching server message' }) as Promise<ServerMessage>;
  }

  close(): void {
    this.socket.close();
  }
}
