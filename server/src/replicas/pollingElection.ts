/**
 * Which replica polls the members (sharedPolling, docs/operating/replicas.md): ZooKeeper's leader election
 * recipe. Each replica creates `<root>/polling/candidate-<replica id>-<seq>`, ephemeral and
 * sequential, on its state session; the lowest sequence leads; every other candidate watches only
 * the one just below it, so a leader's end wakes one replica, not all (no herd).
 *
 * The replica id in the name is Curator's "protected" mode: a create whose reply was lost
 * (OUTCOME_UNKNOWN for a sequential name) is found again by listing, and a candidate of this
 * replica's previous session (not reaped yet) is told apart by its ephemeral owner.
 *
 * Leadership is held while the session that owns the candidate lives. A disconnection does not
 * end it (the session may come back, and the leader goes on polling for its own browsers); a new
 * session does, at once, before anything else is done on it. A re-check every
 * RECHECK_MS (jittered) backs up the predecessor's watch.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import zookeeper from 'node-zookeeper-client';
import { backoffDelay, normalizeSessionId, type Backoff } from '@keeper/shared';
import { toZkError } from '../zk/errors.js';
import type { ReplicaStore } from './replicaStore.js';

/** Candidates at most: as many as replicas (replicaRegistry.ts's bound). */
export const MAX_CANDIDATES = 64;
const RETRY: Backoff = { baseMs: 200, capMs: 5_000, jitter: [0.5, 1] };
const RECHECK_MS = 30_000;
const PREFIX = 'candidate-';

/** `candidate-<replica>-<seq>` → its parts; null for a name Keeper does not make. */
export function parseCandidate(name: string): { replica: string; seq: number } | null {
  const match = /^candidate-([0-9a-f]+)-(\d{10})$/.exec(name);
  return match ? { replica: match[1]!, seq: Number(match[2]) } : null;
}

/** The candidates by sequence, lowest (the leader) first; names Keeper does not make are left out. */
export function candidateOrder(names: readonly string[]): { name: string; replica: string; seq: number }[] {
  return names
    .flatMap((name) => {
      const parsed = parseCandidate(name);
      return parsed ? [{ name, ...parsed }] : [];
    })
    .sort((a, b) => a.seq - b.seq);
}

export interface ElectionEvents {
  change: [leading: boolean];
}

export class PollingElection extends EventEmitter<ElectionEvents> {
  /** This replica's candidate: its name, sequence and the session (hex) that owns it. */
  private mine: { name: string; seq: number; session: string } | null = null;
  private leadingNow = false;
  private decided = false;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private unwatch: (() => void) | null = null;
  private watching: string | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private readonly onSession = () => this.sessionChanged();

  constructor(
    private readonly store: ReplicaStore,
    private readonly self: { id: string; name: string },
    private readonly log: Logger,
  ) {
    super();
  }

  get dir(): string {
    return this.store.path('polling');
  }

  /** Whether this replica polls for all. */
  get leading(): boolean {
    return this.leadingNow;
  }

  /** Whether the election has given a verdict on this replica's current session. */
  get hasVerdict(): boolean {
    return this.decided;
  }

  /** This replica's sequence number while it is a candidate (the term of its leadership), else null. */
  get term(): number | null {
    return this.mine?.seq ?? null;
  }

  start(): void {
    this.store.gateway.on('session', this.onSession);
    this.schedule();
    this.evaluate();
  }

  close(): void {
    this.closed = true;
    this.store.gateway.off('session', this.onSession);
    this.unwatch?.();
    if (this.recheck) clearTimeout(this.recheck);
    this.setLeading(false);
    // The state session's close deletes the candidate at once (Replicas.close closes it next).
  }

  /** Looks again (a publisher found a later leader's result): the election's verdict is what counts. */
  evaluate(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.evaluate();
      }
    });
  }

  private currentSession(): string | null {
    const session = this.store.gateway.session;
    return session.state === 'connected' && session.sessionId ? normalizeSessionId(session.sessionId) : null;
  }

  private sessionChanged(): void {
    const session = this.store.gateway.session;
    const id = session.sessionId ? normalizeSessionId(session.sessionId) : null;
    // A new session (the old one expired or was closed): the old candidate went with it.
    if (this.mine && id !== null && id !== this.mine.session) {
      this.mine = null;
      this.decided = false;
      this.setLeading(false);
    }
    if (session.state === 'expired' || session.state === 'closed') {
      this.mine = null;
      this.decided = false;
      this.setLeading(false);
    }
    if (this.currentSession() !== null) this.evaluate();
  }

  private async loop(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      const session = this.currentSession();
      if (session === null) return;
      try {
        await this.decideOn(session);
        return;
      } catch (error) {
        if (attempt === 0 || attempt % 10 === 0) this.log.warn({ err: error }, 'polling election: could not take part yet; retrying');
        await sleep(backoffDelay(attempt, RETRY));
      }
    }
  }

  private async decideOn(session: string): Promise<void> {
    if (!this.mine || this.mine.session !== session) await this.enter(session);
    if (this.currentSession() !== session || !this.mine) return;
    const order = candidateOrder(await this.store.children(this.dir));
    const index = order.findIndex((c) => c.name === this.mine?.name);
    if (index === -1) {
      // Gone (deleted by hand, or the session changed under us): enter again.
      this.mine = null;
      this.setLeading(false);
      throw new Error('this replica’s candidate is gone');
    }
    this.decided = true;
    if (index === 0) {
      this.watchPredecessor(null);
      this.setLeading(true);
      return;
    }
    this.setLeading(false);
    this.watchPredecessor(this.store.path('polling', order[index - 1]!.name));
  }

  /** Creates this replica's candidate on `session`, or finds the one a lost reply left. */
  private async enter(session: string): Promise<void> {
    await this.store.ensureRoot();
    await this.store.createIfMissing(this.dir, {});
    const existing = await this.ownCandidates(session);
    if (existing.length === 0) {
      if ((await this.store.children(this.dir)).length >= MAX_CANDIDATES) throw new Error(`${MAX_CANDIDATES} polling candidates already`);
      try {
        await this.store.create(
          this.store.path('polling', `${PREFIX}${this.self.id}-`),
          { replica: this.self.id, name: this.self.name },
          zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
        );
      } catch (error) {
        // The reply was lost: whether it was made is read below.
        if (toZkError(error).code !== 'OUTCOME_UNKNOWN') throw error;
      }
    }
    const found = await this.ownCandidates(session);
    if (found.length === 0) throw new Error('the candidate was not created');
    const [keep, ...extra] = found;
    // Two of ours on one session (a lost reply, then a retry): the lowest stays.
    for (const c of extra) await this.store.remove(this.store.path('polling', c.name), -1);
    this.mine = { name: keep!.name, seq: keep!.seq, session };
    this.log.info({ candidate: keep!.name }, 'polling election: candidate');
  }

  /** This replica's candidates owned by `session`, lowest first; those of an earlier session are deleted. */
  private async ownCandidates(session: string): Promise<{ name: string; seq: number }[]> {
    const ours = candidateOrder(await this.store.children(this.dir)).filter((c) => c.replica === this.self.id);
    const owned: { name: string; seq: number }[] = [];
    for (const c of ours) {
      const path = this.store.path('polling', c.name);
      const stat = await this.store.stat(path);
      if (!stat) continue;
      if (normalizeSessionId(stat.ephemeralOwner) === session) owned.push(c);
      // Left by this replica's previous session, which the server has not reaped yet: it would lead in our name.
      else await this.store.remove(path, stat.version);
    }
    return owned;
  }

  /** Watches only the candidate just below this one (null: none, this one leads). */
  private watchPredecessor(path: string | null): void {
    if (path === this.watching) return;
    this.unwatch?.();
    this.unwatch = null;
    this.watching = path;
    if (path === null) return;
    this.unwatch = this.store.gateway.watches.watch(path, {
      onNode: (state) => {
        if (!state.exists) this.evaluate();
      },
      onChildren: () => undefined,
      onWatchEvent: () => undefined,
      onError: (error, retrying) => this.log.debug({ err: error, retrying, path }, 'polling election: watching the predecessor failed'),
    });
  }

  private schedule(): void {
    if (this.closed) return;
    this.recheck = setTimeout(
      () => {
        this.evaluate();
        this.schedule();
      },
      RECHECK_MS * (0.75 + Math.random() / 2),
    );
    this.recheck.unref();
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leadingNow) return;
    this.leadingNow = leading;
    this.log.info(
      { leading, term: this.mine?.seq ?? null },
      leading ? 'polling election: this replica polls for all' : 'polling election: another replica polls',
    );
    this.emit('change', leading);
  }
}
