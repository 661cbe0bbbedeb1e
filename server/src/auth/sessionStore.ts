/**
 * Server-side sessions behind the cookie. The cookie holds a random value and nothing else; the
 * server keeps only its SHA-256 (the session's `id`), so neither memory nor the state file can be
 * replayed as a cookie. A session ends the moment it is deleted here (sign-out, share-link
 * revocation, expiry), which is why Keeper keeps sessions server-side rather than in signed
 * cookies: a signed cookie stays valid until it expires unless every replica also keeps a list of
 * revoked ones, while a deleted record is revoked everywhere it is read from. The records go to
 * a journal in the state directory (sessionJournal.ts), so a restart signs nobody out; a shared
 * store (ZooKeeper) can later replace the journal without changing this contract.
 *
 * Why a session ended is remembered for a while (bounded), so the sign-in page can say it:
 * "signed out", "session expired", "the admin token was changed since you signed in".
 *
 * Bounded: at most `maxSessions` in all and `maxPerName` per name (a user, a token, a share link);
 * one credential signing in again and again replaces its own oldest sessions, never others'.
 */
import type { Logger } from 'pino';
import { randomToken, sha256Hex } from './secrets.js';
import { SessionJournal, type EndedSession, type JournalRecord, type StoredSession } from './sessionJournal.js';

export type SignInSession = StoredSession;
export type SignInMethodUsed = NonNullable<SignInSession['method']>;

export type NewSignInSession = Pick<SignInSession, 'name' | 'role' | 'via'> & {
  shareLinkId?: string;
  expiresAt?: number;
  method?: SignInMethodUsed;
  credential?: string;
  subject?: string;
  groups?: string[];
};

/** A new session and the two cookie values that name it: given to the browser once, never kept. */
export interface IssuedSignInSession {
  session: SignInSession;
  cookie: string;
  hint: string;
}

export interface SessionLimits {
  ttlMs: number;
  maxSessions?: number;
  maxPerName?: number;
  /** Ended sessions whose reason is remembered, and for how long. */
  maxEnded?: number;
  keepEndedMs?: number;
}

const DEFAULTS = { maxSessions: 10_000, maxPerName: 1_000, maxEnded: 10_000, keepEndedMs: 7 * 24 * 3600_000 };

/** A sign-in whose record the home ensemble did not take: answered 503, the session not kept. */
export class SessionNotStoredError extends Error {
  readonly status = 503;
  constructor(cause: unknown) {
    super(`the sign-in could not be stored in the replicas' home ensemble (${cause instanceof Error ? cause.message : String(cause)}); retry in a moment`, {
      cause,
    });
  }
}

export const cookieKey = (cookieValue: string): string => sha256Hex(`keeper-session:${cookieValue}`);

/**
 * With replicas (replicas/sharedSessions.ts): the records live in the home ensemble instead of the
 * journal. This store is then each replica's cache of them: a sign-in is answered once `put` is
 * stored; a session unknown here is looked up (`load`) before a request is judged; an end made here
 * is published (`end`: every replica drops it), one seen by the clock only forgotten (`forget`).
 */
export interface SessionShare {
  /** Signs a new cookie's random part (the cookie is `<random>.<signature>`). */
  sign(random: string): string;
  /** True when the cookie carries a valid signature: only those are looked up in the home ensemble. */
  signed(cookie: string): boolean;
  put(session: SignInSession): Promise<void>;
  load(id: string): Promise<SignInSession | null>;
  end(end: EndedSession): Promise<void>;
  forget(id: string): void;
}

export class SessionStore {
  private readonly sessions = new Map<string, SignInSession>();
  private readonly byHint = new Map<string, string>();
  private readonly perName = new Map<string, number>();
  private readonly ended = new Map<string, EndedSession>();
  private journal: SessionJournal | null = null;
  private share: SessionShare | null = null;
  private readonly sharing = new Set<Promise<void>>();
  /** Look-ups in the shared store under way, one per id however many requests wait for it. */
  private readonly loading = new Map<string, Promise<void>>();
  private readonly limits: Required<SessionLimits>;

  constructor(
    limits: SessionLimits | number,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULTS, ...(typeof limits === 'number' ? { ttlMs: limits } : limits) };
  }

  /**
   * The store of a previous process, from the state directory: its sessions (those expired
   * meanwhile become "session expired"), its remembered ends, and from now on every change is
   * journalled there. Without a state directory (the open development mode) sessions live in memory.
   */
  static async open(stateDir: string | null, limits: SessionLimits, log: Logger, now: () => number = Date.now): Promise<SessionStore> {
    const store = new SessionStore(limits, now);
    if (stateDir === null) return store;
    const { records, skipped } = SessionJournal.read(stateDir);
    for (const record of records) {
      if ('put' in record) store.put(record.put);
      else store.remember(record.end);
    }
    for (const session of [...store.sessions.values()]) {
      if (session.expiresAt <= now()) store.drop(session.id, 'session expired', session.expiresAt);
    }
    if (skipped > 0) log.warn({ skipped }, 'skipped unreadable lines in the sign-in sessions file');
    store.journal = await SessionJournal.open(stateDir, () => store.snapshot(), log);
    return store;
  }

  create(spec: NewSignInSession): IssuedSignInSession {
    const at = this.now();
    const random = randomToken();
    const cookie = this.share ? `${random}.${this.share.sign(random)}` : random;
    const hint = randomToken(18);
    const session: SignInSession = {
      id: cookieKey(cookie),
      hintId: cookieKey(hint),
      name: spec.name,
      role: spec.role,
      via: spec.via,
      csrfToken: randomToken(24),
      createdAt: at,
      // A share session never outlives its link.
      expiresAt: Math.min(at + this.limits.ttlMs, spec.expiresAt ?? Number.POSITIVE_INFINITY),
      ...(spec.shareLinkId !== undefined ? { shareLinkId: spec.shareLinkId } : {}),
      ...(spec.method !== undefined ? { method: spec.method } : {}),
      ...(spec.credential !== undefined ? { credential: spec.credential } : {}),
      ...(spec.subject !== undefined ? { subject: spec.subject } : {}),
      ...(spec.groups !== undefined ? { groups: spec.groups.slice(0, 200) } : {}),
    };
    if ((this.perName.get(session.name) ?? 0) >= this.limits.maxPerName) {
      this.evictOldestOf(session.name, `replaced by a newer sign-in: at most ${this.limits.maxPerName} sessions per name`);
    } else if (this.sessions.size >= this.limits.maxSessions) this.evictFromLargest();
    this.put(session);
    this.record({ put: session });
    if (this.share)
      this.track(
        this.share.put(session).catch((error: unknown) => {
          // Not stored: another replica would not know it, so this one does not keep it either.
          this.drop(session.id, 'the sign-in could not be stored in the home ensemble', this.now(), false);
          throw new SessionNotStoredError(error);
        }),
      );
    return { session, cookie, hint };
  }

  /** Replicas: the records are kept in the home ensemble from now on (the journal is not opened then). */
  shareWith(share: SessionShare): void {
    this.share = share;
  }

  /** Resolves once every change so far is durable (a sign-in is answered only then); rejects when one could not be stored. */
  async persisted(): Promise<void> {
    await (this.journal?.settled() ?? Promise.resolve());
    // Each promise settles: a failure is reported to the sign-in waiting for it, and is not kept.
    const pending = [...this.sharing];
    const results = await Promise.allSettled(pending);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }

  /**
   * Replicas: brings the cookie's session from the home ensemble when this replica does not hold
   * it (made on another replica, or before a restart). Only a cookie signed with the cluster secret
   * is looked up: a forged one costs no read. A session ended meanwhile is not there: "signed out".
   */
  async fetch(cookieValue: string | null | undefined): Promise<void> {
    const share = this.share;
    if (!share || !cookieValue || !share.signed(cookieValue)) return;
    const id = cookieKey(cookieValue);
    if (this.sessions.has(id) || this.ended.has(id)) return;
    let loading = this.loading.get(id);
    if (!loading) {
      loading = share.load(id).then((session) => {
        if (session && session.id === id && session.expiresAt > this.now() && !this.ended.has(id) && !this.sessions.has(id)) this.put(session);
      });
      this.loading.set(id, loading);
      void loading.catch(() => undefined).finally(() => this.loading.delete(id));
    }
    await loading;
  }

  /** Replicas: another replica ended these sessions; true for each held here (its sockets must close). */
  absorbEnd(end: EndedSession): boolean {
    const live = this.sessions.has(end.id);
    this.remember(end);
    return live;
  }

  /** Replicas: after a new state session nothing cached can be trusted (ends may have been missed): read each again. */
  clearCache(): string[] {
    const ids = [...this.sessions.keys()];
    for (const id of ids) {
      const session = this.sessions.get(id);
      if (session) this.unindex(session);
    }
    return ids;
  }

  private track(write: Promise<void>): void {
    this.sharing.add(write);
    void write.catch(() => undefined).finally(() => this.sharing.delete(write));
  }

  /** The live session a signed-in hint cookie names, or null. */
  byHintValue(hint: string | null | undefined): SignInSession | null {
    if (!hint) return null;
    const id = this.byHint.get(cookieKey(hint));
    return id === undefined ? null : this.byId(id);
  }

  /** The live session for a cookie value, or null (unknown or expired: an expired one is dropped). */
  get(cookieValue: string | null | undefined): SignInSession | null {
    if (!cookieValue) return null;
    return this.byId(cookieKey(cookieValue));
  }

  /** Why the session this cookie named ended, while that is remembered; null for a live or unknown one. */
  endOf(cookieValue: string | null | undefined): EndedSession | null {
    if (!cookieValue) return null;
    const id = cookieKey(cookieValue);
    if (this.sessions.has(id)) this.byId(id);
    return this.ended.get(id) ?? null;
  }

  byId(id: string): SignInSession | null {
    const session = this.sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= this.now()) {
      this.drop(id, 'session expired', this.now(), false);
      return null;
    }
    return session;
  }

  /** Ends a session and remembers why; null when there was none. */
  delete(id: string, reason = 'ended'): SignInSession | null {
    const session = this.sessions.get(id) ?? null;
    if (session) this.drop(id, reason, this.now());
    return session;
  }

  /** Ends every session bound to a share link; returns their ids. */
  deleteForShareLink(linkId: string, reason = 'share link ended'): string[] {
    const ended: string[] = [];
    for (const [id, s] of this.sessions) {
      if (s.shareLinkId === linkId) {
        this.drop(id, reason, this.now(), false);
        ended.push(id);
      }
    }
    return ended;
  }

  /** Drops expired sessions; returns their ids so sockets opened with them can be closed. */
  sweep(): string[] {
    const now = this.now();
    const ended: string[] = [];
    for (const [id, s] of this.sessions) {
      if (s.expiresAt <= now) {
        this.drop(id, 'session expired', s.expiresAt, false);
        ended.push(id);
      }
    }
    for (const [id, e] of this.ended) {
      if (now - e.at <= this.limits.keepEndedMs) break;
      this.ended.delete(id);
    }
    return ended;
  }

  /** Every live session (for the start-up check that their credentials still hold). */
  list(): SignInSession[] {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }

  close(): Promise<void> {
    return this.journal?.close() ?? Promise.resolve();
  }

  private put(session: SignInSession): void {
    const previous = this.sessions.get(session.id);
    if (previous) this.unindex(previous);
    this.sessions.set(session.id, session);
    this.byHint.set(session.hintId, session.id);
    this.perName.set(session.name, (this.perName.get(session.name) ?? 0) + 1);
    this.ended.delete(session.id);
  }

  private unindex(session: SignInSession): void {
    this.sessions.delete(session.id);
    this.byHint.delete(session.hintId);
    const n = (this.perName.get(session.name) ?? 1) - 1;
    if (n <= 0) this.perName.delete(session.name);
    else this.perName.set(session.name, n);
  }

  private drop(id: string, reason: string, at: number, publish = true): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.unindex(session);
    const end: EndedSession = { id, reason: reason.slice(0, 300), at };
    this.remember(end);
    this.record({ end });
    if (!this.share) return;
    // Every replica sees an expiry by its own clock and a share link's end through the link's watch.
    if (publish) this.track(this.share.end(end));
    else this.share.forget(id);
  }

  private remember(end: EndedSession): void {
    // Re-inserted, so the Map's order stays oldest first for the bound.
    this.ended.delete(end.id);
    this.ended.set(end.id, end);
    while (this.ended.size > this.limits.maxEnded) {
      const oldest = this.ended.keys().next().value;
      if (oldest === undefined) break;
      this.ended.delete(oldest);
    }
    const live = this.sessions.get(end.id);
    if (live) this.unindex(live);
  }

  private record(record: JournalRecord): void {
    // The journal logs its own failures; the session itself is live in memory either way.
    this.journal?.append(record).catch(() => undefined);
  }

  private evictOldestOf(name: string, reason: string): void {
    for (const s of this.sessions.values()) {
      if (s.name === name) return void this.delete(s.id, reason);
    }
  }

  private evictFromLargest(): void {
    let largest: string | null = null;
    let most = 0;
    for (const [name, n] of this.perName) {
      if (n > most) [largest, most] = [name, n];
    }
    if (largest !== null) this.evictOldestOf(largest, `replaced by a newer sign-in: Keeper holds at most ${this.limits.maxSessions} sessions`);
  }

  private snapshot(): JournalRecord[] {
    return [...[...this.ended.values()].map((end) => ({ end })), ...[...this.sessions.values()].map((put) => ({ put }))];
  }
}
