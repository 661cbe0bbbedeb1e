/**
 * Lock reports as the server builds them, made with the shared analyzeLock from hand-made
 * directories, sessions and watch gatherings, for the component tests:
 *  - /app/locks/job, kazoo #732 (seed 002): A holds (its owner has a 15-min timeout), B leaked
 *    (alive, watches nothing across its 30 s session timeout: gatherings 15 s apart), C a live
 *    waiter watching B;
 *  - /app/locks/persist: a persistent node holds, D waits behind it;
 *  - /tasks/big: 100,000 contenders, the first 50 listed (seed 000's scale).
 */
import {
  analyzeLock,
  compareLocksWorstFirst,
  leakCheckSummary,
  recognizeLock,
  type AnalyzeLockInput,
  type LockReport,
  type LockAnswer,
  type LocksAnswer,
  type OwnerSession,
  type WatchGathering,
} from '@keeper/shared';

export const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
export const NOW = T0 + 60_000;

const seq = (n: number) => String(n).padStart(10, '0');
/** kazoo's uuid4().hex prefix, distinct per i. */
const hex32 = (i: number) => ((i * 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(4);
const kazooLock = (i: number, n: number) => `${hex32(i)}__lock__${seq(n)}`;

export const JOB = '/app/locks/job';
export const A = kazooLock(1, 0);
export const B = kazooLock(2, 1);
export const C = kazooLock(3, 2);
export const PERSIST = '/app/locks/persist';
export const P0 = kazooLock(4, 0);
export const D = kazooLock(5, 1);
export const BIG = '/tasks/big';

function session(id: string, over: Partial<OwnerSession> = {}): OwnerSession {
  const n = parseInt(id, 16);
  return {
    sessionId: id,
    client: `10.0.4.${20 + n}:5${String(n).padStart(4, '0')}`,
    member: '127.0.0.1:2191',
    timeoutMs: 30_000,
    lastResponseAt: NOW - 1_000,
    connected: true,
    expiresAt: null,
    flags: [],
    ...over,
  };
}

const facts = (owner: string, over: Partial<ReturnType<typeof baseFacts>> = {}) => ({ ...baseFacts(owner), ...over });
function baseFacts(owner: string) {
  return {
    ephemeralOwner: owner,
    ctime: T0 - 60_000,
    data: null as Uint8Array | null,
    firstSeenAt: T0 - 60_000,
    version: 0,
    holdingSince: null as number | null,
    holdKind: null as 'created' | 'seen' | 'atLeast' | null,
  };
}

const utf8 = (text: string) => new TextEncoder().encode(text);

function gathering(at: number, watches: Record<string, string[]>): WatchGathering {
  return {
    askedAt: at,
    answeredAt: at + 200,
    complete: true,
    watches: new Map(Object.entries(watches)),
    connectedSessions: new Set(['0xa', '0xb', '0xc', '0xd', '0xe']),
  };
}

/** C watches B and D watches the persistent node; B's owner watches nothing in its directory, across 31 s. */
const WATCHES = { [`${JOB}/${B}`]: ['0xc'], [`${PERSIST}/${P0}`]: ['0xd'] };
export const GATHERINGS = [gathering(T0, WATCHES), gathering(T0 + 15_000, WATCHES), gathering(T0 + 31_000, WATCHES)];

const SESSIONS = new Map(
  [session('0xa', { timeoutMs: 900_000 }), session('0xb'), session('0xc'), session('0xd'), session('0xe')].map((s) => [s.sessionId, s] as const),
);

function analyze(path: string, children: string[], facts: AnalyzeLockInput['facts']): LockReport {
  const lock = recognizeLock({ path, children });
  if (!lock) throw new Error(`not a lock: ${path}`);
  return analyzeLock({ lock, facts, sessions: SESSIONS, sessionsAsOf: NOW - 900, gatherings: GATHERINGS, now: NOW });
}

export function jobLock(): LockReport {
  return analyze(
    JOB,
    [C, A, B],
    new Map([
      [A, facts('0xa', { data: utf8('worker-1'), ctime: NOW - 10 * 60_000, holdingSince: NOW - 5 * 60_000, holdKind: 'seen', version: 0 })],
      [B, facts('0xb', { data: utf8('worker-2'), ctime: NOW - 50_000 })],
      [C, facts('0xc', { data: utf8('worker-3'), ctime: NOW - 20_000 })],
    ]),
  );
}

export function persistentLock(): LockReport {
  return analyze(
    PERSIST,
    [P0, D],
    new Map([
      [P0, facts('0x0')],
      [D, facts('0xd')],
    ]),
  );
}

let big: LockReport | null = null;

/** Built once per test file: recognizing 100,000 names takes a moment. */
export function bigLock(): LockReport {
  big ??= buildBigLock();
  return big;
}

function buildBigLock(): LockReport {
  const n = 100_000;
  const names = Array.from({ length: n }, (_, i) => kazooLock(100 + i, i));
  const lock = recognizeLock({ path: BIG, children: names });
  if (!lock) throw new Error('not a lock');
  const first = lock.contenders.slice(0, 50);
  return analyzeLock({ lock, facts: new Map(first.map((c) => [c.name, facts('0xe')])), sessions: SESSIONS, gatherings: [], now: NOW });
}

export function lockResponse(lock: LockReport): LockAnswer {
  return { ensemble: 'default', lock, herds: [], leakCheck: leakCheckSummary(GATHERINGS), ownersHidden: false, at: NOW };
}

export function locksResponse(): LocksAnswer {
  const locks = [bigLock(), jobLock(), persistentLock()].sort(compareLocksWorstFirst);
  return {
    ensemble: 'default',
    root: '/',
    q: '',
    locks,
    offset: 0,
    limit: 100,
    total: locks.length,
    counts: {
      leaked: locks.filter((l) => l.worstStatus === 'leaked').length,
      persistent: locks.filter((l) => l.worstStatus === 'persistent').length,
      waiting: locks.filter((l) => l.worstStatus === 'waiting').length,
      holder: locks.filter((l) => l.worstStatus === 'holder').length,
      empty: locks.filter((l) => l.worstStatus === null).length,
    },
    ownersHidden: false,
    herds: [
      {
        path: '/queue/holder',
        watchers: 20,
        sessions: Array.from({ length: 20 }, (_, i) => `0x${(100 + i).toString(16)}`),
        lock: null,
        context: null,
        message: '20 sessions watch /queue/holder: each change wakes all of them; a lock recipe with predecessor watches wakes one.',
      },
    ],
    leakCheck: leakCheckSummary(GATHERINGS),
    roots: ['/app/locks'],
    tracked: 3,
    trackLimit: 1_000,
    opened: 0,
    openedLimit: 100,
    lastScan: {
      path: '/',
      jobId: 'job-1',
      state: 'done',
      startedAt: NOW - 30_000,
      finishedAt: NOW - 20_000,
      visited: 101_234,
      found: 3,
      requests: 1_250,
      skipped: [{ path: '/tasks/huge', reason: 'more than 10,000 children: not descended' }],
      skippedTotal: 1,
    },
    at: NOW,
  };
}
