/**
 * A replica that does not poll, for one published kind (sharedPolling, docs/operating/replicas.md): one
 * data watch on the head `polled/<kind>` (the state session's watch registry re-arms it after a
 * new session), the pages read when the head names new content, and asks for a new gathering
 * written to `asks/<kind>` (compare-and-set; the znode's version is the ask's number), answered
 * when a head says `ask` ≥ that number, or refused with the polling replica's reason.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ZnodeState } from '@keeper/shared';
import { decodePolled, ensureDirs, polledAskSchema, polledHeadSchema, polledPageSchema, type PolledHead, type PolledKind } from './polledValue.js';
import type { ReplicaStore } from './replicaStore.js';

export interface Followed<T> {
  value: T;
  /** When it was polled or gathered (the publisher's clock). */
  at: number;
  by: { id: string; name: string };
  seq: string;
}

export interface FollowerOptions<T> {
  store: ReplicaStore;
  /** `<root>/ensembles/<id>` */
  ensembleDir: string;
  kind: PolledKind;
  schema: z.core.$ZodType<T>;
  self: { id: string; name: string };
  log: Logger;
  /** Each new result, as soon as its pages are read. */
  onResult: (result: Followed<T>) => void;
  /** How long an ask waits for its answer (default ASK_DEADLINE_MS). */
  askDeadlineMs?: number;
}

/** A gathering takes a few seconds at most (each member's call has a 2 s deadline); the answer's write, milliseconds. */
export const ASK_DEADLINE_MS = 10_000;

interface Waiter<T> {
  ask: number;
  resolve: (result: Followed<T>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class PolledFollower<T> {
  private latest: Followed<T> | null = null;
  private head: PolledHead | null = null;
  private waiters: Waiter<T>[] = [];
  private unwatch: (() => void) | null = null;
  private reading: Promise<void> | null = null;
  private nextHead: PolledHead | null = null;
  private closed = false;

  constructor(private readonly options: FollowerOptions<T>) {}

  get headPath(): string {
    return `${this.options.ensembleDir}/polled/${this.options.kind}`;
  }

  get askPath(): string {
    return `${this.options.ensembleDir}/asks/${this.options.kind}`;
  }

  /** The last result read, or null. */
  get current(): Followed<T> | null {
    return this.latest;
  }

  start(): void {
    this.unwatch = this.options.store.gateway.watches.watch(this.headPath, {
      onNode: (state) => this.onHead(state),
      onChildren: () => undefined,
      onWatchEvent: () => undefined,
      onError: (error, retrying) => this.options.log.debug({ err: error, retrying, path: this.headPath }, 'sharedPolling: watching a published result failed'),
    });
  }

  close(): void {
    this.closed = true;
    this.unwatch?.();
    this.unwatch = null;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('this replica polls itself now'));
    }
  }

  /** Asks the polling replica for a new gathering and waits for it (at most askDeadlineMs). */
  async ask(): Promise<Followed<T>> {
    const { store, self } = this.options;
    const asks = `${this.options.ensembleDir}/asks`;
    const stored = await store
      .update(this.askPath, polledAskSchema, () => ({ replica: self.id, at: Date.now() }))
      .catch(async (error: unknown) => {
        // The first ask of this ensemble: its directories are made, then it is asked again.
        await ensureDirs(store, asks);
        if (this.closed) throw error;
        return store.update(this.askPath, polledAskSchema, () => ({ replica: self.id, at: Date.now() }));
      });
    const ask = stored.stat.version + 1;
    const deadlineMs = this.options.askDeadlineMs ?? ASK_DEADLINE_MS;
    return new Promise<Followed<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        // Past the deadline: what was last published, with its own time (the view shows how old), else why not.
        if (this.latest) resolve(this.latest);
        else reject(new Error(`the replica that polls the members did not answer within ${Math.round(deadlineMs / 1000)} s, and none has published this yet`));
      }, deadlineMs);
      timer.unref();
      this.waiters.push({ ask, resolve, reject, timer });
      if (this.head) this.settle(this.head);
    });
  }

  private onHead(state: ZnodeState): void {
    if (this.closed || !state.exists) return;
    let head: PolledHead | null = null;
    if (state.data.encoding === 'json' && !state.data.truncated) {
      const parsed = polledHeadSchema.safeParse(JSON.parse(state.data.value));
      if (parsed.success) head = parsed.data;
    }
    if (!head) return this.options.log.warn({ path: this.headPath }, 'sharedPolling: a published head is not what Keeper writes');
    this.nextHead = head;
    this.reading ??= this.readHeads().finally(() => (this.reading = null));
  }

  /** One head at a time, the newest waiting one next (heads that came meanwhile are skipped). */
  private async readHeads(): Promise<void> {
    while (this.nextHead && !this.closed) {
      const head = this.nextHead;
      this.nextHead = null;
      try {
        if (head.seq !== '' && head.seq !== this.latest?.seq) await this.readContent(head);
      } catch (error) {
        this.options.log.warn({ err: error, path: this.headPath }, 'sharedPolling: a published result could not be read; waiting for the next');
        continue;
      }
      this.head = head;
      this.settle(head);
    }
  }

  private async readContent(head: PolledHead): Promise<void> {
    const pages = [head.z];
    for (let n = 1; n < head.pages; n++) {
      const page = await this.options.store.read(`${this.headPath}/${n}`, polledPageSchema);
      // Written after this head was read: the head that names it comes next.
      if (!page || page.value.seq !== head.seq) throw new Error(`page ${n} is not of ${head.seq} (the next result is being written)`);
      pages.push(page.value.z);
    }
    const value = z.parse(this.options.schema, await decodePolled(pages, head.bytes));
    if (this.closed) return;
    this.latest = { value, at: head.at, by: head.by, seq: head.seq };
    this.options.onResult(this.latest);
  }

  /** Answers the asks this head answers (or refuses). */
  private settle(head: PolledHead): void {
    const open: Waiter<T>[] = [];
    for (const w of this.waiters) {
      if (head.ask >= w.ask && this.latest) w.resolve(this.latest);
      else if (head.failed && head.failed.ask >= w.ask) w.reject(new Error(`${head.by.name} could not gather it: ${head.failed.message}`));
      else {
        open.push(w);
        continue;
      }
      clearTimeout(w.timer);
    }
    this.waiters = open;
  }
}
