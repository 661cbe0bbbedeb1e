/**
 * One lock directory, as the Locks view shows it: every contender's place, status word,
 * flags, chain and consequence, from
 *  - the recognized directory (names only: holders and counts for all children),
 *  - the facts the server fetched for some of them (stat and data: the first ones of a big
 *    directory; the rest are counted, not listed),
 *  - the ensemble's sessions (the sessions view's data) and its watch gatherings (wchp + cons).
 * Pure: the server calls it on every change, the tests with hand-made inputs.
 */
import { normalizeSessionId } from '../ensemble/parse/sessionIds.js';
import { joinPath } from '../paths.js';
import { NO_SESSION } from '../sessionId.js';
import { buildWaitChains, shortName, waitsForText, type ChainTextInput } from './chain.js';
import { LOCK_DEFAULTS } from './config.js';
import { contenderConsequence } from './consequence.js';
import { decodeContenderData } from './decode.js';
import { contenderFlags, type OwnerSession } from './flags.js';
import { lockNotes } from './lockNotes.js';
import { STATUS_SEVERITY } from './lockOrder.js';
import { planHolding } from './holding.js';
import { assessLeak, latestWatchesInDirectory, type LeakEvidence, type WatchGathering } from './leakEvidence.js';
import { resolvePermits } from './permits.js';
import { recipeInfo, type RecognizedLock } from './recognize.js';
import type { Contender, ContenderOwner, ContenderStatus, HoldSince, LockReport, WatchingState } from './schemas.js';

/** What the server knows of one contender node. */
export interface ContenderFacts {
  /** From its stat: '0x0' for a persistent node. */
  ephemeralOwner: string;
  /** From its stat (the ensemble's clock). */
  ctime: number;
  data: Uint8Array | null;
  /** Keeper's clock when a listing that included this node had arrived. */
  firstSeenAt: number;
  /** Keeper's clock when Keeper first saw it in a holding position (its hold began no later). */
  holdingSince?: number | null;
  /**
   * How Keeper knows when its hold began (see HoldSince): `created` (nothing was deleted before
   * it since its creation: held since its ctime), `seen` (Keeper saw it start holding at
   * `holdingSince`), `atLeast` (it already held when Keeper began watching at `holdingSince`).
   * Absent: `atLeast`.
   */
  holdKind?: HoldSince['kind'] | null;
  /** Its data version (stat.version). */
  version?: number;
  /** Keeper's clock when a report first called it `leaked` (kept once it reaches the front, where no watch can prove it again). */
  provenLeakedAt?: number | null;
}

export interface AnalyzeLockInput {
  lock: RecognizedLock;
  /** By child name; contenders without facts are counted but not listed. */
  facts: ReadonlyMap<string, ContenderFacts>;
  /** The ensemble's sessions by id (sessionsById); null when not gathered: then nothing is called leaked. */
  sessions: ReadonlyMap<string, OwnerSession> | null;
  /** Keeper's clock at the sessions gathering those come from (an owner's last response is as of then). */
  sessionsAsOf?: number | null;
  /** Each node's leak evidence carried from the last analysis, by child name. */
  evidence?: ReadonlyMap<string, LeakEvidence>;
  gatherings: readonly WatchGathering[];
  now: number;
  /** The lock directory's own data: kazoo's Semaphore records N there. */
  directoryData?: Uint8Array | null;
  /** N from the config (`locks.permits`), for semaphores that do not record it. */
  configuredPermits?: number | null;
  heldLongMs?: number;
}

export function sessionsById(sessions: readonly OwnerSession[]): Map<string, OwnerSession> {
  return new Map(sessions.map((s) => [normalizeSessionId(s.sessionId) ?? s.sessionId, s]));
}

/** Owners already normalized: the same few sessions own thousands of nodes. Bounded: cleared when full. */
const normalizedOwners = new Map<string, string>();
const OWNERS_KEPT = 50_000;

/** The owner's session id, or null for a persistent node. */
function ownerId(f: ContenderFacts): string | null {
  let id = normalizedOwners.get(f.ephemeralOwner);
  if (id === undefined) {
    id = normalizeSessionId(f.ephemeralOwner) ?? f.ephemeralOwner;
    if (normalizedOwners.size >= OWNERS_KEPT) normalizedOwners.clear();
    normalizedOwners.set(f.ephemeralOwner, id);
  }
  return id === NO_SESSION ? null : id;
}

function ownerView(id: string, s: OwnerSession | undefined, asOf: number | null): ContenderOwner {
  const lastResponseAt = s?.lastResponseAt ?? null;
  return {
    sessionId: id,
    known: s !== undefined,
    client: s?.client || null,
    member: s?.member || null,
    timeoutMs: s?.timeoutMs ?? null,
    lastResponseAt,
    lastResponseAsOf: lastResponseAt === null ? null : asOf,
    connected: s?.connected ?? null,
  };
}

/** Since when a holder holds: from its ctime when nothing before it went since, else from when Keeper saw it holding. */
function holdSinceOf(f: ContenderFacts): HoldSince | null {
  if (f.holdKind === 'created') return { at: f.ctime, kind: 'created' };
  if (typeof f.holdingSince !== 'number') return null;
  // A hold cannot begin before the node existed (the ensemble's clock and Keeper's may differ a little).
  return { at: Math.max(f.holdingSince, f.ctime), kind: f.holdKind === 'seen' ? 'seen' : 'atLeast' };
}

export function analyzeLock(input: AnalyzeLockInput): LockReport {
  return analyzeLockWithEvidence(input).report;
}

/** The report, and each waiter's leak evidence to carry into the next analysis (by child name). */
export function analyzeLockWithEvidence(input: AnalyzeLockInput): { report: LockReport; evidence: Map<string, LeakEvidence> } {
  const { lock, facts, sessions, now } = input;
  const { recipe, contenders } = lock;
  const heldLongMs = input.heldLongMs ?? LOCK_DEFAULTS.heldLongMs;
  const { permits, source: permitsSource } = resolvePermits(recipe, input.directoryData, input.configuredPermits);
  const plan = planHolding(recipe.holding, contenders, recipe.holding === 'firstN' ? permits : null);
  const n = contenders.length;
  const pathOf = (i: number) => joinPath(lock.path, contenders[i]!.name);
  const indexByPath = new Map(contenders.map((c, i) => [joinPath(lock.path, c.name), i]));

  // A session that holds here may add a node without waiting (Curator's read lock taken under
  // its own write lock): its owner's other nodes are never called leaked. Unknown holders' owners
  // (no facts) leave that open, so nothing is called leaked then.
  const holderOwners = new Set<string>();
  let holderOwnersKnown = true;
  for (let i = 0; i < n; i++) {
    if (!plan.holding[i]) continue;
    const f = facts.get(contenders[i]!.name);
    if (!f) holderOwnersKnown = false;
    else {
      const id = ownerId(f);
      if (id !== null) holderOwners.add(id);
    }
  }

  const isBlockerOf = (i: number) => (path: string) => {
    const j = indexByPath.get(path);
    if (j === undefined || j >= i) return false;
    if (recipe.holding === 'readersBeforeWriter' && contenders[i]!.role === 'reader') return contenders[j]!.role === 'writer';
    return recipe.holding === 'firstN' || j === plan.blocker[i];
  };

  const listed: number[] = [];
  const evidence = new Map<string, LeakEvidence>();
  const statuses = new Map<number, { status: ContenderStatus; watching: WatchingState | null }>();
  for (let i = 0; i < n; i++) {
    const f = facts.get(contenders[i]!.name);
    if (!f) continue;
    listed.push(i);
    const id = ownerId(f);
    if (recipe.holding === 'none') statuses.set(i, { status: 'waiting', watching: null });
    else if (id === null) statuses.set(i, { status: 'persistent', watching: null });
    else if (plan.holding[i]) statuses.set(i, { status: 'holder', watching: null });
    else if (recipe.waiterWatch !== 'data') statuses.set(i, { status: 'waiting', watching: 'unknown' });
    else {
      const answer = assessLeak(input.gatherings, {
        dir: lock.path,
        owner: id,
        firstSeenAt: f.firstSeenAt,
        isBlocker: isBlockerOf(i),
        ownerTimeoutMs: sessions?.get(id)?.timeoutMs ?? null,
        carried: input.evidence?.get(contenders[i]!.name) ?? null,
      });
      evidence.set(contenders[i]!.name, answer.evidence);
      const leaked = answer.leaked && sessions !== null && sessions.has(id) && holderOwnersKnown && !holderOwners.has(id);
      statuses.set(i, { status: leaked ? 'leaked' : 'waiting', watching: answer.watching });
    }
  }

  // kazoo 2.8.0's ReadLock waits for the last writer in the directory, even one queued behind
  // it: a reader woken after the writer ahead of it left then watches the writer behind it,
  // which waits for the reader. The rule says it holds; its owner's watch says it does not.
  const readerDeadlocks = new Map<number, number>();
  if (recipe.id === 'kazoo.ReadWriteLock') {
    for (const i of listed) {
      if (!plan.holding[i] || contenders[i]!.role !== 'reader') continue;
      const f = facts.get(contenders[i]!.name)!;
      const id = ownerId(f);
      const watched = id === null ? null : latestWatchesInDirectory(input.gatherings, lock.path, id, f.firstSeenAt);
      const behind = watched?.map((p) => indexByPath.get(p)).find((j) => j !== undefined && j > i && contenders[j]!.role === 'writer');
      if (behind !== undefined) readerDeadlocks.set(i, behind);
    }
  }

  // A holder proven leaked while it waited still deadlocks the lock: its waiters are stuck behind it, as behind a leaked node.
  const provenLeaked = (i: number) => plan.holding[i] === true && typeof facts.get(contenders[i]!.name)?.provenLeakedAt === 'number';
  const statusOf = (i: number) => {
    const status = statuses.get(i)?.status;
    return status === 'holder' && provenLeaked(i) ? 'leaked' : status;
  };
  const chains = buildWaitChains(plan, statusOf);
  const holderWord = recipe.kind === 'election' ? 'leader' : 'holder';
  const chainInput: ChainTextInput = { names: contenders.map((c) => c.name), plan, chains, statusOf, holderWord };

  const listedContenders: Contender[] = listed.map((i) => {
    const c = contenders[i]!;
    const f = facts.get(c.name)!;
    const id = ownerId(f);
    const session = id !== null ? sessions?.get(id) : undefined;
    const holding = plan.holding[i]!;
    const { status, watching } = statuses.get(i)!;
    const heldSince = holding ? holdSinceOf(f) : null;
    const heldForMs = heldSince ? Math.max(0, now - heldSince.at) : null;
    const root = chains.root[i] ?? null;
    const blocker = plan.blocker[i] ?? null;
    const stuck = chains.stuckAt[i] ?? null;
    const stuckFacts = stuck !== null ? facts.get(contenders[stuck]!.name) : undefined;
    const stuckStatus = stuck !== null ? statusOf(stuck) : undefined;
    return {
      path: pathOf(i),
      name: c.name,
      sequence: c.sequence,
      position: i + 1,
      role: c.role,
      holding,
      status,
      flags: contenderFlags({ owner: session ?? null, holding, kind: recipe.kind, heldForMs, heldLongMs, now, provenLeaked: holding && provenLeaked(i) }),
      owner: id === null ? null : ownerView(id, session, input.sessionsAsOf ?? null),
      data: decodeContenderData(recipe.library, c.role, f.data),
      createdAt: f.ctime,
      version: f.version ?? null,
      heldForMs,
      heldSince,
      waitingForMs: holding ? null : Math.max(0, now - f.ctime),
      waitingSince: holding ? null : f.ctime,
      waitsFor:
        root !== null && blocker !== null ? { next: pathOf(blocker), holder: pathOf(root), links: chains.depth[i]!, text: waitsForText(i, chainInput)! } : null,
      watching,
      consequence: readerDeadlocks.has(i)
        ? readerDeadlockSentence(contenders[readerDeadlocks.get(i)!]!.name)
        : contenderConsequence({
            status,
            holding,
            kind: recipe.kind,
            rule: recipe.holding,
            role: c.role,
            ownerId: id,
            ownerTimeoutMs: session?.timeoutMs ?? null,
            depth: chains.depth[i]!,
            provenLeaked: status === 'holder' && provenLeaked(i),
            stuck:
              stuck !== null && (stuckStatus === 'leaked' || stuckStatus === 'persistent')
                ? { name: contenders[stuck]!.name, status: stuckStatus, ownerId: stuckFacts ? ownerId(stuckFacts) : null }
                : null,
          }),
    };
  });

  let worstStatus: ContenderStatus | null = null;
  let oldestHoldMs: number | null = null;
  let oldestHoldAtLeast = false;
  for (const [k, c] of listedContenders.entries()) {
    // A holder proven leaked counts as leaked here, so the deadlocked lock sorts first.
    const status = statusOf(listed[k]!) ?? c.status;
    if (worstStatus === null || STATUS_SEVERITY[status] > STATUS_SEVERITY[worstStatus]) worstStatus = status;
    if (c.heldForMs !== null && (oldestHoldMs === null || c.heldForMs > oldestHoldMs)) {
      oldestHoldMs = c.heldForMs;
      oldestHoldAtLeast = c.heldSince?.kind === 'atLeast';
    }
  }

  const report: LockReport = {
    path: lock.path,
    recipe: recipeInfo(recipe),
    note: lock.note,
    total: n,
    holders: plan.holders,
    waiters: plan.waiters,
    permits,
    permitsSource,
    contenders: listedContenders,
    worstStatus,
    oldestHoldMs,
    oldestHoldAtLeast,
    notes: lockNotes(input, { permits, listed: listed.length, waiters: plan.waiters }),
    computedAt: now,
  };
  return { report, evidence };
}

function readerDeadlockSentence(writer: string): string {
  return (
    `Its owner watches ${shortName(writer)}, a writer queued behind it: kazoo 2.8.0's ReadLock waits for the last writer in the lock, even a later one, ` +
    'so this reader does not hold the lock while that writer waits for it. They wait for each other until one of them is deleted.'
  );
}
