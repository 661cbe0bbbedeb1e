/**
 * `dump`: the session tracker, then the ephemeral nodes per session. Its first part differs
 * by role, and both forms are useful:
 *
 *   leader / standalone (SessionTrackerImpl): sessions bucketed by expiry time
 *     Session Sets (6)/(4):
 *     1 expire at Sun Nov 22 04:52:14 UTC 2026:
 *     \t0x100002f75570000
 *   follower / observer (LearnerSessionTracker): every global session with its timeout
 *     Global Sessions(4):
 *     0x100002f75570000\t900000ms
 *
 * then, on every member:
 *     ephemeral nodes dump:
 *     Sessions with Ephemerals (2):
 *     0x100002f75570000:
 *     \t/app/workers/w-0000000001
 *     Connections dump: ...   (this member's connections; ignored: cons says more)
 *
 * A session listed here but connected to no member is a client that is gone or cut off:
 * its ephemerals (and the locks they stand for) live until it expires.
 */
import { parseJavaDate } from './javaDate.js';
import { normalizeSessionId } from './sessionIds.js';

export interface DumpSession {
  /** From a learner's dump. */
  timeoutMs: number | null;
  /** From the leader's dump: when it expires unless the client is heard from (epoch ms). */
  expiresAt: number | null;
}

export interface DumpInfo {
  /** Which tracker printed it: 'leader' (expiry buckets) or 'learner' (timeouts). */
  tracker: 'leader' | 'learner' | null;
  sessions: Map<string, DumpSession>;
  ephemerals: Map<string, string[]>;
}

type Section = 'none' | 'leaderSessions' | 'learnerSessions' | 'ephemerals' | 'connections';

export function parseDump(text: string): DumpInfo {
  const info: DumpInfo = { tracker: null, sessions: new Map(), ephemerals: new Map() };
  let section: Section = 'none';
  let bucketExpiry: number | null = null;
  let ephemeralOwner: string | null = null;
  const session = (id: string): DumpSession => {
    let entry = info.sessions.get(id);
    if (!entry) info.sessions.set(id, (entry = { timeoutMs: null, expiresAt: null }));
    return entry;
  };

  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (/^Session Sets \(/.test(trimmed)) {
      section = 'leaderSessions';
      info.tracker = 'leader';
      continue;
    }
    if (/^(Global|Local) Sessions\s*\(/.test(trimmed)) {
      section = 'learnerSessions';
      info.tracker ??= 'learner';
      continue;
    }
    if (/^Sessions with Ephemerals/.test(trimmed)) {
      section = 'ephemerals';
      continue;
    }
    if (/^Connections dump/.test(trimmed) || /^Connections Sets/.test(trimmed)) {
      section = 'connections';
      continue;
    }
    if (/^(SessionTracker dump|ephemeral nodes dump)/.test(trimmed)) continue;

    switch (section) {
      case 'leaderSessions': {
        const bucket = /^\d+ expire at (.+):$/.exec(trimmed);
        if (bucket) {
          bucketExpiry = parseJavaDate(bucket[1]!);
          continue;
        }
        const id = normalizeSessionId(trimmed);
        if (id) session(id).expiresAt = bucketExpiry;
        continue;
      }
      case 'learnerSessions': {
        const match = /^(0x[0-9a-fA-F]+)\s+(\d+)\s*ms$/.exec(trimmed);
        const id = match ? normalizeSessionId(match[1]!) : null;
        if (id) session(id).timeoutMs = Number(match![2]);
        continue;
      }
      case 'ephemerals': {
        // An owner line is "0x...:" at the start; its paths follow, indented.
        const owner = /^(0x[0-9a-fA-F]+):$/.exec(trimmed);
        if (owner && !/^\s/.test(line)) {
          ephemeralOwner = normalizeSessionId(owner[1]!);
          if (ephemeralOwner && !info.ephemerals.has(ephemeralOwner)) info.ephemerals.set(ephemeralOwner, []);
          continue;
        }
        if (ephemeralOwner && trimmed.startsWith('/')) info.ephemerals.get(ephemeralOwner)!.push(trimmed);
        continue;
      }
      case 'connections':
      case 'none':
        continue;
      default: {
        const never: never = section;
        throw new Error(`unhandled dump section ${String(never)}`);
      }
    }
  }
  for (const paths of info.ephemerals.values()) paths.sort();
  return info;
}
