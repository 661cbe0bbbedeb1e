/**
 * Sign-in sessions shared by the replicas (docs/operating/replicas.md): each session's record is
 * `<root>/sessions/<first 2 hex of its id>/<id>` (the id is the SHA-256 of the cookie, never the
 * cookie), written before the sign-in is answered. Each replica's SessionStore is a cache of those
 * records: a cookie it does not hold is read once, then served from memory.
 *
 * Ends: a sign-out, a rotated credential or an eviction deletes the record and appends
 * `{ids, reason, at}` to `<root>/session-ends` (persistent sequential). Every replica holds one
 * child watch on that log (not a data watch per session: thousands of them would swell the
 * SetWatches packet sent on every reconnect), reads the entries past the last one it saw, drops
 * those sessions and closes their sockets. Expiry needs no message (each replica has a clock), nor
 * does a share link's end (each replica follows the link). When entries were pruned before this
 * replica read them (a long outage), every cached session is read again.
 *
 * Cookies are `<random>.<HMAC of random with a key from the cluster secret>`: a cookie whose
 * signature does not hold (forged, or made before replicas) is never looked up, so guessing costs
 * the home ensemble nothing. The signature authenticates nothing by itself: the record does.
 *
 * Bounded: 256 buckets of at most ceil(maxSessions / 256) records each. A sign-in into a full
 * bucket first deletes the bucket's expired records, then ends the oldest session of the name
 * holding the most there (as the single Keeper evicts from the largest name). The log keeps its
 * newest SESSION_ENDS_KEPT entries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import zookeeper from 'node-zookeeper-client';
import type { Logger } from 'pino';
import { z } from 'zod';
import { backoffDelay, type Backoff } from '@keeper/shared';
import { endedSessionSchema, storedSessionSchema, type EndedSession } from '../auth/sessionJournal.js';
import type { SignInSession, SessionShare, SessionStore } from '../auth/sessionStore.js';
import { toZkError } from '../zk/errors.js';
import { DEFAULT_SHARED_SESSIONS } from '../config/replicasConfig.js';
import type { ReplicaStore } from './replicaStore.js';

export const SESSION_BUCKETS = 256;
/** Entries kept in `<root>/session-ends`; older ones are deleted by the replica appending. */
export const SESSION_ENDS_KEPT = 1_000;
const END_PREFIX = 'end-';
const SIGNATURE_CHARS = 22;
/** How long a look-up waits for the first listing of the ended sessions. */
const READY_WAIT_MS = 10_000;
const RETRY: Backoff = { baseMs: 200, capMs: 5_000, jitter: [0.5, 1] };

const endEntrySchema = z.object({ ids: z.array(endedSessionSchema.shape.id).max(200), reason: z.string().max(300), at: z.number() });
type EndEntry = z.infer<typeof endEntrySchema>;

export interface SharedSessionsOptions {
  store: ReplicaStore;
  sessions: SessionStore;
  secret: string;
  maxSessions?: number;
  /** A session held here was ended by another replica: close its sockets. */
  onEnded: (id: string, reason: string) => void;
  log: Logger;
}

const seqOf = (name: string): number => (name.startsWith(END_PREFIX) ? Number(name.slice(END_PREFIX.length)) : Number.NaN);

export class SharedSessions implements SessionShare {
  readonly perBucket: number;
  private readonly key: Buffer;
  private readonly knownBuckets = new Set<string>();
  /** The highest `session-ends` sequence read; null until the log was first listed. */
  private lastSeq: number | null = null;
  private reading: Promise<void> = Promise.resolve();
  private unwatch: (() => void) | null = null;
  private closed = false;
  private markReady: () => void = () => undefined;
  /** Look-ups wait for the first listing of the log, so no end made meanwhile is skipped. */
  private readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));
  private markPrepared: () => void = () => undefined;
  /** Sign-ins wait for the directories (the first replica's first sign-in can come before they exist). */
  private readonly prepared = new Promise<void>((resolve) => (this.markPrepared = resolve));

  constructor(private readonly options: SharedSessionsOptions) {
    this.perBucket = Math.ceil((options.maxSessions ?? DEFAULT_SHARED_SESSIONS) / SESSION_BUCKETS);
    this.key = createHmac('sha256', options.secret).update('keeper-session-cookie').digest();
  }

  private get store(): ReplicaStore {
    return this.options.store;
  }

  private get endsDir(): string {
    return this.store.path('session-ends');
  }

  async start(): Promise<void> {
    await this.untilDone('prepare the sessions directories', async () => {
      await this.store.ensureRoot();
      await this.store.createIfMissing(this.store.path('sessions'), {});
      await this.store.createIfMissing(this.endsDir, {});
    });
    this.markPrepared();
    if (this.closed) return;
    this.unwatch = this.store.gateway.watches.watch(this.endsDir, {
      onNode: () => undefined,
      onChildren: ({ names }) => {
        this.reading = this.reading
          .then(() => this.readEnds(names))
          .catch((error: unknown) => this.options.log.warn({ err: error }, 'sessions: reading ended sessions failed'));
      },
      onWatchEvent: () => undefined,
      onError: (error, retrying) => this.options.log.warn({ err: error, retrying }, 'sessions: watching the ended sessions failed'),
    });
  }

  close(): void {
    this.closed = true;
    this.unwatch?.();
    this.markReady();
    this.markPrepared();
  }

  sign(random: string): string {
    return createHmac('sha256', this.key).update(random).digest('base64url').slice(0, SIGNATURE_CHARS);
  }

  signed(cookie: string): boolean {
    const dot = cookie.lastIndexOf('.');
    if (dot <= 0) return false;
    const given = Buffer.from(cookie.slice(dot + 1));
    const expected = Buffer.from(this.sign(cookie.slice(0, dot)));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async put(session: SignInSession): Promise<void> {
    await Promise.race([this.prepared, sleep(READY_WAIT_MS, undefined, { ref: false })]);
    const bucket = this.bucketOf(session.id);
    if (!this.knownBuckets.has(bucket)) {
      await this.store.createIfMissing(bucket, {});
      this.knownBuckets.add(bucket);
    }
    const names = await this.store.children(bucket);
    if (names.length >= this.perBucket) await this.makeRoom(bucket, names.length);
    await this.store.create(`${bucket}/${session.id}`, session);
  }

  async load(id: string): Promise<SignInSession | null> {
    // Bounded: the read below fails on its own deadline when the home ensemble is away.
    await Promise.race([this.ready, sleep(READY_WAIT_MS, undefined, { ref: false })]);
    return (await this.store.read(`${this.bucketOf(id)}/${id}`, storedSessionSchema))?.value ?? null;
  }

  async end(end: EndedSession): Promise<void> {
    await this.store.remove(`${this.bucketOf(end.id)}/${end.id}`, -1);
    await this.appendEnd({ ids: [end.id], reason: end.reason, at: end.at });
  }

  forget(id: string): void {
    // Expired or its link ended: every replica knows by itself; the record goes, whoever deletes it first.
    this.store
      .remove(`${this.bucketOf(id)}/${id}`, -1)
      .catch((error: unknown) => this.options.log.debug({ err: error }, 'sessions: an ended record stays until its bucket is swept'));
  }

  private bucketOf(id: string): string {
    return this.store.path('sessions', id.slice(0, 2));
  }

  /** A full bucket: its expired records go; still full, the oldest session of its most frequent name ends. */
  private async makeRoom(bucket: string, count: number): Promise<void> {
    const records: { session: SignInSession; version: number }[] = [];
    for (const name of await this.store.children(bucket)) {
      const stored = await this.store.read(`${bucket}/${name}`, storedSessionSchema).catch(() => null);
      if (stored) records.push({ session: stored.value, version: stored.stat.version });
    }
    const now = Date.now();
    let left = count;
    for (const { session, version } of records) {
      if (session.expiresAt > now) continue;
      if (await this.store.remove(`${bucket}/${session.id}`, version)) left--;
    }
    if (left < this.perBucket) return;
    const live = records.filter((r) => r.session.expiresAt > now).sort((a, b) => a.session.createdAt - b.session.createdAt);
    const perName = new Map<string, number>();
    for (const { session } of live) perName.set(session.name, (perName.get(session.name) ?? 0) + 1);
    const largest = [...perName].sort((a, b) => b[1] - a[1])[0]?.[0];
    const victim = live.find((r) => r.session.name === largest);
    if (!victim) return;
    const reason = `replaced by a newer sign-in: the replicas keep at most ${this.perBucket * SESSION_BUCKETS} sessions`;
    await this.store.remove(`${bucket}/${victim.session.id}`, victim.version);
    await this.appendEnd({ ids: [victim.session.id], reason, at: now });
  }

  private async appendEnd(entry: EndEntry): Promise<void> {
    try {
      await this.store.create(`${this.endsDir}/${END_PREFIX}`, entry, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
    } catch (error) {
      // A lost reply to a sequential create: once more (an end read twice ends nothing twice).
      if (toZkError(error).code !== 'OUTCOME_UNKNOWN') throw error;
      await this.store.create(`${this.endsDir}/${END_PREFIX}`, entry, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
    }
    const names = (await this.store.children(this.endsDir)).filter((n) => Number.isFinite(seqOf(n))).sort((a, b) => seqOf(a) - seqOf(b));
    for (const name of names.slice(0, Math.max(0, names.length - SESSION_ENDS_KEPT))) await this.store.remove(`${this.endsDir}/${name}`, -1);
  }

  /** The log's entries past the last one read: their sessions end here. */
  private async readEnds(names: readonly string[]): Promise<void> {
    const seqs = names
      .map(seqOf)
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    const newest = seqs.at(-1) ?? -1;
    if (this.lastSeq === null) {
      // Nothing is cached before this first listing: there is nothing to end yet.
      this.lastSeq = newest;
      this.markReady();
      return;
    }
    const since = this.lastSeq;
    const fresh = seqs.filter((s) => s > since);
    if (fresh.length === 0) return;
    const missed = since >= 0 && (seqs[0] ?? 0) > since + 1;
    for (const seq of fresh) {
      const entry = await this.store.read(`${this.endsDir}/${END_PREFIX}${String(seq).padStart(10, '0')}`, endEntrySchema).catch(() => null);
      if (!entry) continue;
      for (const id of entry.value.ids) {
        if (this.options.sessions.absorbEnd({ id, reason: entry.value.reason, at: entry.value.at })) this.options.onEnded(id, entry.value.reason);
      }
    }
    this.lastSeq = Math.max(since, newest);
    if (missed) await this.reverify();
  }

  /** Entries were pruned before this replica read them: every cached session is read again, and those gone end. */
  private async reverify(): Promise<void> {
    this.options.log.warn('sessions: ended sessions were pruned before this replica read them; reading every cached session again');
    for (const session of this.options.sessions.list()) {
      const stored = await this.store.read(`${this.bucketOf(session.id)}/${session.id}`, storedSessionSchema).catch(() => undefined);
      if (stored !== null) continue;
      const reason = 'signed out on another replica';
      if (this.options.sessions.absorbEnd({ id: session.id, reason, at: Date.now() })) this.options.onEnded(session.id, reason);
    }
  }

  private async untilDone(what: string, work: () => Promise<void>): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt === 0 || attempt % 10 === 0) this.options.log.warn({ err: error }, `sessions: could not ${what} yet: retrying`);
        await sleep(backoffDelay(attempt, RETRY));
      }
    }
  }
}
