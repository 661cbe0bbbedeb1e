/**
 * Did the member restart since its baseline? A fast restart (a few seconds, between two polls)
 * may never look down, so beside "seen down" this reads the traces a new process leaves: its
 * uptime started again, its packet counters started again, or its version string changed (a
 * new build says "built on" another date). Never Keeper's clock alone (see uptimeReset).
 */
import type { MemberStatus } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import type { MemberBaseline, RestartEvidence } from './schemas.js';

export interface RestartFinding {
  evidence: RestartEvidence;
  /** What showed it, with the numbers. */
  saw: string;
}

/** Uptime is whole seconds: two readings of one process may differ by one the wrong way. */
const UPTIME_ROUNDING_SECONDS = 1;
/**
 * Uptime is whole seconds (±1) and each reading is stamped when its probe answered (within the
 * 2 s call deadline): more than this below what the old process would show is a new one, by
 * Keeper's clock. Only one sign of two (countersReset): Keeper's stamps are taken on its event loop,
 * which a stall (SIGSTOP, a flood, a loaded machine) makes late by any amount, so the same process
 * read after a 4 s stall looked "restarted" (1269 s, where 1280 s were expected), and a failed
 * restart turned done.
 */
const UPTIME_SLACK_SECONDS = 3;

export function baselineOf(m: MemberStatus): MemberBaseline {
  return {
    polledAt: m.polledAt,
    state: m.state,
    uptimeSeconds: m.metrics.uptimeSeconds,
    version: m.metrics.version,
    zxid: m.metrics.zxid,
    packetsReceived: m.metrics.packetsReceived,
  };
}

/**
 * A new process by its uptime. On its own only when the uptime itself went back (below the
 * baseline's, by more than rounding), which no clock of Keeper's enters. A young member (up a few
 * seconds at the baseline) restarted fast may already show more than the baseline: then the time
 * since the baseline, on Keeper's clock, says so only with a second, clock-free sign beside it,
 * its packet counters started again.
 */
function uptimeReset(baseline: MemberBaseline, now: MemberStatus): RestartFinding | null {
  const before = baseline.uptimeSeconds;
  const after = now.metrics.uptimeSeconds;
  if (before === null || after === null) return null;
  if (after + UPTIME_ROUNDING_SECONDS < before) return { evidence: 'uptime-reset', saw: `uptime went back to ${after} s (it was ${before} s)` };
  const expected = before + Math.max(0, now.polledAt - baseline.polledAt) / 1000;
  if (after + UPTIME_SLACK_SECONDS >= expected) return null;
  const counters = countersReset(baseline, now);
  if (!counters) return null;
  return {
    evidence: 'uptime-reset',
    saw: `uptime ${after} s where about ${Math.round(expected)} s were expected without a restart (it was ${before} s), and ${counters.saw}`,
  };
}

function countersReset(baseline: MemberBaseline, now: MemberStatus): RestartFinding | null {
  const before = baseline.packetsReceived;
  const after = now.metrics.packetsReceived;
  if (before === null || after === null || after >= before) return null;
  return { evidence: 'counters-reset', saw: `packets received went back to ${after} (it was ${before}): a new process` };
}

function versionChanged(baseline: MemberBaseline, now: MemberStatus): RestartFinding | null {
  const before = baseline.version;
  const after = now.metrics.version;
  if (before === null || after === null || before === after) return null;
  return { evidence: 'version-changed', saw: `the version changed from "${before}" to "${after}"` };
}

/** The first trace of a restart, or null when the member looks like the same process. */
export function detectRestart(baseline: MemberBaseline, now: MemberStatus): RestartFinding | null {
  if (!isServing(now)) return { evidence: 'seen-down', saw: `seen ${now.state}${now.detail ? ` (${now.detail})` : ''}` };
  // `srst` also zeroes the packet counters, so they count only where uptime is not reported.
  const uptimeKnown = baseline.uptimeSeconds !== null && now.metrics.uptimeSeconds !== null;
  return (uptimeKnown ? uptimeReset(baseline, now) : countersReset(baseline, now)) ?? versionChanged(baseline, now);
}

/**
 * A member seen down (or unreachable) and serving again: did it restart? The down sign is one; the
 * second is a new process's trace, or its uptime short of the time since the baseline by more than
 * the slack. Null when it did; else the words for the same process (it stopped answering a while,
 * as a flood or a stalled Keeper makes it look, and its uptime kept counting). Where neither side
 * reports an uptime, the down sign stands alone, as it must (null).
 */
export function notRestartedAfterDown(baseline: MemberBaseline, now: MemberStatus): string | null {
  const before = baseline.uptimeSeconds;
  const after = now.metrics.uptimeSeconds;
  if (before === null || after === null) return null;
  if (uptimeReset(baseline, now) || countersReset(baseline, now) || versionChanged(baseline, now)) return null;
  const expected = before + Math.max(0, now.polledAt - baseline.polledAt) / 1000;
  if (after + UPTIME_SLACK_SECONDS < expected) return null;
  return `serving again with its uptime still counting (${after} s, it was ${before} s): the same process, it did not restart`;
}
