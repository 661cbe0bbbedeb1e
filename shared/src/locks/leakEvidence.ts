/**
 * Proving a contender leaked: its owner is alive but has no watch in the lock directory, so
 * it is not waiting for anything (kazoo #732: a failed non-blocking acquire whose cleanup hit
 * a connection loss). Zero false "leaked" is the bar, so only absences that prove something
 * count:
 *  - a gathering proves an absence only if every member answered (a watch lives on the member
 *    its session is connected to) and the owner was connected then (a session between two
 *    connections has no watch anywhere until it re-registers them on the new member);
 *  - and only if it was asked after Keeper had seen the node (a gathering from before the
 *    node existed says nothing about it);
 *  - a live waiter re-registers its watch milliseconds after each event, so one gathering can
 *    catch it between the two; and a live client whose callback thread is held by a slow
 *    application callback (kazoo runs every watch callback on one thread) re-registers it only
 *    once that callback returns, which can take many seconds. So the absence must last across a
 *    window of at least the owner's session timeout (never under LEAK_MIN_GAP_MS and two proving
 *    gatherings), with no watch seen in any gathering since the earliest of them (a watch seen
 *    in between, even by an incomplete gathering, is a live waiter). A real #732 leak lasts for
 *    the life of its session, so waiting that long costs nothing.
 *
 * Gatherings are kept only for a minute or so, and a session timeout may be 15 minutes: the run
 * of absences is carried from one assessment to the next (`LeakEvidence`), folding each newer
 * gathering in once.
 */
import { parentPath } from '../paths.js';
import type { LeakCheck, WatchingState } from './schemas.js';

export const LEAK_MIN_GAP_MS = 10_000;

/** One gathering of wchp (and cons) over the ensemble's members. */
export interface WatchGathering {
  /** Keeper's clock when the first question was sent. */
  askedAt: number;
  /** Keeper's clock when the last answer had arrived. */
  answeredAt: number;
  /** Every serving member answered: an absence here is an absence on the ensemble. */
  complete: boolean;
  /** path -> ids of the sessions watching it, merged over members (parseWchp, mergeWatchesByPath). */
  watches: ReadonlyMap<string, readonly string[]>;
  /** Sessions with a connection on some member (cons) in this gathering; null when not asked. */
  connectedSessions: ReadonlySet<string> | null;
}

/** directory -> session -> the paths it watches there (the directory itself and its children). */
type DirectoryIndex = Map<string, Map<string, string[]>>;
const indexes = new WeakMap<WatchGathering, DirectoryIndex>();

function add(index: DirectoryIndex, dir: string, session: string, path: string): void {
  let bySession = index.get(dir);
  if (!bySession) index.set(dir, (bySession = new Map()));
  const paths = bySession.get(session);
  if (paths) paths.push(path);
  else bySession.set(session, [path]);
}

/** Built once per gathering, so checking 100 directories does not walk every watch 100 times. */
function indexOf(gathering: WatchGathering): DirectoryIndex {
  let index = indexes.get(gathering);
  if (index) return index;
  index = new Map();
  for (const [path, sessions] of gathering.watches) {
    const parent = parentPath(path);
    for (const session of sessions) {
      add(index, path, session, path);
      if (parent !== null) add(index, parent, session, path);
    }
  }
  indexes.set(gathering, index);
  return index;
}

/** The paths in `dir` (itself or a child) that `session` watches in this gathering. */
export function watchesInDirectory(gathering: WatchGathering, dir: string, session: string): readonly string[] {
  return indexOf(gathering).get(dir)?.get(session) ?? [];
}

/** This gathering can prove that `session` watches nothing: every member answered and the session was connected. */
export function provesAbsence(g: WatchGathering, session: string): boolean {
  return g.complete && (g.connectedSessions?.has(session) ?? false);
}

export interface LeakQuestion {
  dir: string;
  /** The owner's session id, normalized ("0x..."). */
  owner: string;
  /** Keeper's clock when a listing that included the node had arrived. */
  firstSeenAt: number;
  /** Whether a watch on this path is the one its recipe sets (its predecessor; for a reader, a writer ahead). */
  isBlocker: (path: string) => boolean;
  /** The owner's session timeout; null when unknown (then nothing is proven). */
  ownerTimeoutMs: number | null;
  /** What earlier assessments of this node gathered (kept by the caller); null for none. */
  carried?: LeakEvidence | null;
}

/** The run of proving absences so far, for one node and its owner. */
export interface LeakEvidence {
  /** askedAt of the newest gathering folded in: later ones are folded next time. */
  foldedThrough: number;
  /** answeredAt of the first proving gathering of the current run (no watch seen since); null: no run. */
  unwatchedSince: number | null;
  /** askedAt of the newest proving gathering of the run. */
  lastProof: number | null;
  /** Proving gatherings in the run. */
  proofs: number;
}

export interface LeakAnswer {
  /** Proven: unwatched across the whole window, as above. */
  leaked: boolean;
  /** What the latest gathering after the node appeared says. */
  watching: WatchingState;
  /** To carry into the next assessment. */
  evidence: LeakEvidence;
  /** How long the absence has been proven (ms), and how long it must be; null without a run. */
  provenForMs: number | null;
  windowMs: number | null;
}

/** What `owner` watches in `dir` in the latest gathering asked after Keeper had seen its node; null without one. */
export function latestWatchesInDirectory(gatherings: readonly WatchGathering[], dir: string, owner: string, firstSeenAt: number): readonly string[] | null {
  let latest: WatchGathering | null = null;
  for (const g of gatherings) if (g.askedAt >= firstSeenAt && (latest === null || g.askedAt > latest.askedAt)) latest = g;
  return latest === null ? null : watchesInDirectory(latest, dir, owner);
}

/** The window a leak must be proven across: the owner's session timeout, never under LEAK_MIN_GAP_MS; null when the timeout is unknown. */
export function leakWindowMs(ownerTimeoutMs: number | null): number | null {
  return ownerTimeoutMs === null ? null : Math.max(LEAK_MIN_GAP_MS, ownerTimeoutMs);
}

const NO_EVIDENCE: LeakEvidence = { foldedThrough: -Infinity, unwatchedSince: null, lastProof: null, proofs: 0 };

/** Folds the gatherings newer than the carried evidence into it, oldest first. */
export function foldLeakEvidence(gatherings: readonly WatchGathering[], q: Pick<LeakQuestion, 'dir' | 'owner' | 'firstSeenAt' | 'carried'>): LeakEvidence {
  let ev = q.carried ?? NO_EVIDENCE;
  const newer = gatherings.filter((g) => g.askedAt >= q.firstSeenAt && g.askedAt > ev.foldedThrough).sort((a, b) => a.askedAt - b.askedAt);
  for (const g of newer) {
    if (watchesInDirectory(g, q.dir, q.owner).length > 0) ev = { foldedThrough: g.askedAt, unwatchedSince: null, lastProof: null, proofs: 0 };
    else if (provesAbsence(g, q.owner))
      ev = { foldedThrough: g.askedAt, unwatchedSince: ev.unwatchedSince ?? g.answeredAt, lastProof: g.askedAt, proofs: ev.proofs + 1 };
    else ev = { ...ev, foldedThrough: g.askedAt };
  }
  return ev;
}

export function assessLeak(gatherings: readonly WatchGathering[], q: LeakQuestion): LeakAnswer {
  const evidence = foldLeakEvidence(gatherings, q);
  let latest: WatchGathering | null = null;
  for (const g of gatherings) if (g.askedAt >= q.firstSeenAt && (latest === null || g.askedAt > latest.askedAt)) latest = g;
  const windowMs = leakWindowMs(q.ownerTimeoutMs);
  const provenForMs = evidence.unwatchedSince !== null && evidence.lastProof !== null ? Math.max(0, evidence.lastProof - evidence.unwatchedSince) : null;
  if (!latest) return { leaked: false, watching: 'unknown', evidence, provenForMs, windowMs };

  const latestPaths = watchesInDirectory(latest, q.dir, q.owner);
  const watching: WatchingState = latestPaths.some((p) => q.isBlocker(p))
    ? 'blocker'
    : latestPaths.length > 0
      ? 'elsewhere'
      : provesAbsence(latest, q.owner)
        ? 'nothing'
        : 'unknown';
  // The window counts from when the first proving answer had arrived to when the latest proving question was sent.
  const leaked = windowMs !== null && evidence.proofs >= 2 && provenForMs !== null && provenForMs >= windowMs;
  return { leaked, watching, evidence, provenForMs, windowMs };
}

/** What the gatherings at hand allow, for the answer's `leakCheck`. */
export function leakCheckSummary(gatherings: readonly WatchGathering[]): LeakCheck {
  const complete = gatherings.filter((g) => g.complete).sort((a, b) => a.askedAt - b.askedAt);
  const first = complete[0];
  const last = complete.at(-1);
  const spanMs = first && last && first !== last ? Math.max(0, last.askedAt - first.answeredAt) : null;
  const ready = spanMs !== null && spanMs >= LEAK_MIN_GAP_MS;
  const gapText = `${LEAK_MIN_GAP_MS / 1000} s`;
  const rule = `a contender is called leaked when its owner, alive and connected, watched nothing in the lock in every gathering across at least its session timeout (never under ${gapText} and two gatherings)`;
  const sentence = ready
    ? `Watches gathered ${complete.length} times over ${Math.round(spanMs / 1000)} s: ${rule}.`
    : `Nothing is called leaked yet: ${rule} (${complete.length === 0 ? 'none so far' : complete.length === 1 ? 'one so far' : `the ${complete.length} so far span ${Math.round((spanMs ?? 0) / 1000)} s`}).`;
  return { gatherings: gatherings.length, spanMs, ready, sentence };
}
