/**
 * The polling replica's side of one published kind (sharedPolling, docs/operating/replicas.md): writes
 * each new result as pages and then its head (polledValue.ts), and the answers to the other
 * replicas' asks. One write at a time; a result that comes while one is written replaces the
 * one waiting (only the latest is worth writing).
 *
 * Single writer by the election, and compare-and-set besides: the head is set at the version
 * this replica last wrote or read. A head found at another version was written by another
 * replica: one of a later term (a higher election sequence) leads now, and this one stops and
 * has the election look again; one of an earlier term wrote late, and is written over.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { toZkError } from '../zk/errors.js';
import { encodePolled, ensureDirs, polledHeadSchema, TooLargeToShare, type PolledHead, type PolledKind, type PolledPage } from './polledValue.js';
import type { ReplicaStore } from './replicaStore.js';

interface Content {
  seq: string;
  at: number;
  pages: string[];
  bytes: number;
}

const NO_CONTENT: Content = { seq: '', at: 0, pages: [''], bytes: 0 };
const anyJson = z.unknown();

export interface PublisherOptions {
  store: ReplicaStore;
  /** `<root>/ensembles/<id>/polled` */
  dir: string;
  kind: PolledKind;
  self: { id: string; name: string };
  /** This replica's election sequence number. */
  term: number;
  log: Logger;
  /** A later leader's head was found: this replica no longer leads. */
  onSuperseded: () => void;
}

export class PolledPublisher {
  private content: Content = NO_CONTENT;
  private ask = 0;
  private failed: PolledHead['failed'] = null;
  /** What the head says now, as this replica last wrote or read it. */
  private written: { seq: string; ask: number; failed: PolledHead['failed']; pages: number } | null = null;
  private headVersion: number | null = null;
  private readonly pageVersions = new Map<number, number>();
  private writing: Promise<void> | null = null;
  private dirty = false;
  private stopped = false;
  private counter = 0;
  private ready: Promise<void>;

  constructor(private readonly options: PublisherOptions) {
    this.ready = this.init();
  }

  get headPath(): string {
    return `${this.options.dir}/${this.options.kind}`;
  }

  /** The highest ask answered or refused so far (the last leader's included). */
  get answered(): number {
    return Math.max(this.ask, this.failed?.ask ?? 0);
  }

  /** Settles once the publisher knows what the head says (asks the previous leader answered are not answered again). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Stops writing (this replica no longer leads); a write under way finishes. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * A new result, polled or gathered at `at`: written as soon as the write before it is done.
   * False when it is too large to share (the ask it answers, if any, is refused with why).
   */
  async publish(value: unknown, at: number, answersAsk = 0): Promise<boolean> {
    let encoded: { pages: string[]; bytes: number };
    try {
      encoded = await encodePolled(value);
    } catch (error) {
      if (!(error instanceof TooLargeToShare)) throw error;
      this.options.log.warn({ kind: this.options.kind, err: error }, 'sharedPolling: a result too large to share');
      if (answersAsk > 0) this.refuse(answersAsk, `too large to share through the home ensemble: ${error.message}`);
      return false;
    }
    // A result older than the one held (two gatherings finishing out of order) is not written over it.
    if (at >= this.content.at) this.content = { seq: `${this.options.term}-${++this.counter}`, at, ...encoded };
    this.ask = Math.max(this.ask, answersAsk);
    this.kick();
    return true;
  }

  /** Ask `ask` is answered by the content held now (nothing newer was gathered: the rate limit said not yet). */
  answer(ask: number): void {
    this.ask = Math.max(this.ask, ask);
    this.kick();
  }

  /** Ask `ask` could not be answered: the replica waiting for it is told `message`. */
  refuse(ask: number, message: string): void {
    if (ask <= (this.failed?.ask ?? 0)) return;
    this.failed = { ask, message: message.slice(0, 2_000) };
    this.kick();
  }

  private async init(): Promise<void> {
    try {
      const head = await this.options.store.read(this.headPath, polledHeadSchema);
      if (!head) return;
      this.headVersion = head.stat.version;
      this.written = { seq: head.value.seq, ask: head.value.ask, failed: head.value.failed, pages: head.value.pages };
      // The asks the previous leader answered stay answered.
      this.ask = Math.max(this.ask, head.value.ask);
      if (head.value.failed) this.failed = head.value.failed;
    } catch (error) {
      this.options.log.debug({ kind: this.options.kind, err: error }, 'sharedPolling: the published head could not be read; written over');
    }
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.writing) {
      this.dirty = true;
      return;
    }
    this.writing = this.write()
      .catch((error: unknown) =>
        this.options.log.warn({ kind: this.options.kind, err: error }, 'sharedPolling: publishing failed; the next result tries again'),
      )
      .finally(() => {
        this.writing = null;
        if (this.dirty) {
          this.dirty = false;
          this.kick();
        }
      });
  }

  private async write(): Promise<void> {
    await this.ready;
    const content = this.content;
    const head: PolledHead = {
      v: 1,
      by: this.options.self,
      term: this.options.term,
      seq: content.seq,
      at: content.at,
      ask: this.ask,
      failed: this.failed,
      pages: content.pages.length,
      bytes: content.bytes,
      z: content.pages[0]!,
    };
    const was = this.written;
    if (was && was.seq === head.seq && was.ask === head.ask && was.failed?.ask === head.failed?.ask) return;
    if (!was || was.seq !== content.seq) {
      // The pages are the head's children: a first head, empty, makes their parent.
      if (this.headVersion === null && content.pages.length > 1 && !(await this.putHead({ ...head, seq: '', at: 0, pages: 1, bytes: 0, z: '' }))) return;
      // Pages before their head: a head never names a page not written yet.
      for (let n = 1; n < content.pages.length; n++) await this.put(n, { seq: content.seq, z: content.pages[n]! });
    }
    if (!(await this.putHead(head))) return;
    const before = was?.pages ?? 1;
    this.written = { seq: head.seq, ask: head.ask, failed: head.failed, pages: head.pages };
    // Pages the head no longer names: deleted (bounded by MAX_POLLED_PAGES).
    for (let n = content.pages.length; n < before; n++) await this.dropPage(n);
  }

  /** Sets the head at the version known, else creates it; false when a later leader's head is there. */
  private async putHead(head: PolledHead): Promise<boolean> {
    const { store } = this.options;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.stopped) return false;
      if (this.headVersion === null) {
        try {
          await ensureDirs(store, this.options.dir);
          await store.create(this.headPath, head);
          this.headVersion = 0;
          return true;
        } catch (error) {
          if (toZkError(error).code !== 'NODE_EXISTS') throw error;
          const current = await store.read(this.headPath, polledHeadSchema);
          if (current && this.superseded(current.value)) return false;
          this.headVersion = current?.stat.version ?? null;
          continue;
        }
      }
      const result = await store.compareAndSet(this.headPath, head, this.headVersion, polledHeadSchema);
      if (result.ok) {
        this.headVersion = result.stat.version;
        return true;
      }
      if (result.current && this.superseded(result.current.value)) return false;
      this.headVersion = result.current?.stat.version ?? null;
    }
    throw new Error(`${this.headPath} kept changing under this replica`);
  }

  private superseded(found: PolledHead): boolean {
    if (found.term <= this.options.term) return false;
    this.options.log.info(
      { kind: this.options.kind, term: this.options.term, found: found.term, by: found.by.name },
      'sharedPolling: a later leader publishes',
    );
    this.stopped = true;
    this.options.onSuperseded();
    return true;
  }

  private async put(n: number, page: PolledPage): Promise<void> {
    const { store } = this.options;
    const path = `${this.headPath}/${n}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const version = this.pageVersions.get(n);
      if (version === undefined) {
        const stat = await store.stat(path);
        if (stat) {
          this.pageVersions.set(n, stat.version);
          continue;
        }
        try {
          await store.create(path, page);
          this.pageVersions.set(n, 0);
          return;
        } catch (error) {
          if (toZkError(error).code !== 'NODE_EXISTS') throw error;
          continue;
        }
      }
      const result = await store.compareAndSet(path, page, version, anyJson);
      if (result.ok) {
        this.pageVersions.set(n, result.stat.version);
        return;
      }
      if (result.current) this.pageVersions.set(n, result.current.stat.version);
      else this.pageVersions.delete(n);
    }
    throw new Error(`${path} kept changing under this replica`);
  }

  private async dropPage(n: number): Promise<void> {
    const path = `${this.headPath}/${n}`;
    const stat = await this.options.store.stat(path);
    if (stat) await this.options.store.remove(path, stat.version);
    this.pageVersions.delete(n);
  }
}
