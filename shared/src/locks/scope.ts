/**
 * What a share link may receive of the Locks view (issue 22, item 12). Every lock answer and
 * topic event a share-link holder gets passes through here, on the server, after the route's
 * or topic's own scope check:
 *  - locks, herds, configured roots and the last scan outside the link's subtree are dropped;
 *    a herd whose lock lies outside it loses that context;
 *  - without the ensemble views, owner sessions, client addresses and member addresses are
 *    hidden: ids and addresses set to null, herds' session lists emptied, and every session id
 *    in a sentence (a consequence's "until session 0x… ends") said as "the owner's session".
 * Pure, so the attack test and the unit tests check the same code the server runs.
 */
import { pathWithin, type ShareScope } from '../shareScope.js';
import type { Contender, LastScan, LockHerd, LockReport, LockAnswer, LocksAnswer } from './schemas.js';

export type LockScope = Pick<ShareScope, 'root' | 'ensembleViews'>;

/** "session 0x1a2b…" in a sentence, and a bare id. */
const SESSION_WORD = /\bsession 0x[0-9a-f]+\b/gi;
const SESSION_ID = /\b0x[0-9a-f]{5,16}\b/gi;

function withoutSessionIds(text: string): string {
  return text.replace(SESSION_WORD, "the owner's session").replace(SESSION_ID, 'a session');
}

function hideOwner(c: Contender): Contender {
  return {
    ...c,
    owner: c.owner && { ...c.owner, sessionId: null, client: null, member: null },
    flags: c.flags.map((f) => ({ ...f, message: withoutSessionIds(f.message) })),
    consequence: c.consequence === null ? null : withoutSessionIds(c.consequence),
  };
}

/** A lock's report as the scope allows it; null when the lock lies outside the link's subtree. */
export function scopeLockReport(report: LockReport, scope: LockScope): LockReport | null {
  if (!pathWithin(scope.root, report.path)) return null;
  if (scope.ensembleViews) return report;
  return { ...report, contenders: report.contenders.map(hideOwner), notes: report.notes.map(withoutSessionIds) };
}

export function scopeHerds(herds: readonly LockHerd[], scope: LockScope): LockHerd[] {
  return herds
    .filter((h) => pathWithin(scope.root, h.path))
    .map((h) => {
      const lockInside = h.lock === null || pathWithin(scope.root, h.lock);
      return {
        ...h,
        sessions: scope.ensembleViews ? h.sessions : [],
        lock: lockInside ? h.lock : null,
        context: lockInside ? h.context : null,
        message: scope.ensembleViews ? h.message : withoutSessionIds(h.message),
      };
    });
}

function scopeLastScan(scan: LastScan | null, scope: LockScope): LastScan | null {
  if (scan === null || !pathWithin(scope.root, scan.path)) return null;
  const skipped = scan.skipped.filter((s) => pathWithin(scope.root, s.path));
  return { ...scan, skipped, skippedTotal: skipped.length === scan.skipped.length ? scan.skippedTotal : skipped.length };
}

/** One lock's answer (GET .../locks/<path>, the `lock` topic); null when the lock lies outside the scope. */
export function scopeLockResponse(answer: LockAnswer, scope: LockScope): LockAnswer | null {
  const lock = scopeLockReport(answer.lock, scope);
  if (lock === null) return null;
  return { ...answer, lock, herds: scopeHerds(answer.herds, scope), ownersHidden: answer.ownersHidden || !scope.ensembleViews };
}

/**
 * The list (GET .../locks, the `locks` topic) as the scope allows it. The server builds the list
 * for a root within the link's subtree first (so its page, total and counts cover only what the
 * link may see); locks outside it are dropped here as well, whatever the caller built.
 */
export function scopeLocksResponse(answer: LocksAnswer, scope: LockScope): LocksAnswer {
  const locks = answer.locks.map((l) => scopeLockReport(l, scope)).filter((l): l is LockReport => l !== null);
  return {
    ...answer,
    root: pathWithin(scope.root, answer.root) ? answer.root : scope.root,
    locks,
    herds: scopeHerds(answer.herds, scope),
    roots: answer.roots.filter((r) => pathWithin(scope.root, r)),
    lastScan: scopeLastScan(answer.lastScan, scope),
    ownersHidden: answer.ownersHidden || !scope.ensembleViews,
  };
}
