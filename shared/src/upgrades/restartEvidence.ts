/**
 * Did the member restart since its baseline? A fast restart (a few seconds, between two polls)
 * may never look down, so beside "seen down" this reads the traces a new process leaves: its
 * uptime started again, its packet counters started again, or its version string changed (a
 * new build says "built on" another date).
 */
import type { MemberStatus } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import type { MemberBaseline, RestartEvidence } from './schemas.js';

export interface RestartFinding {
  evidence: RestartEvidence;
  /** What showed it, with the numbers. */
  saw: string;
}

/**
 * Uptime is whole seconds (±1): more than this below what the old process would show is a new
 * one. No larger: a member restarted in about a second a few seconds after its own start (a young
 * ensemble, or one just rolled) is only told apart by a few seconds, and with 5 it never was.
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
 * Uptime lower than the baseline's plus the time since, by more than the slack: a new process.
 * "The time since" is a lower bound of what passed at the member between its two readings: from
 * when the baseline's answer was read (the member read its uptime before) to when the new probe
 * was sent (the member reads it after). Never the new answer's reading time: a Keeper whose event
 * loop stalled reads an answer seconds late, and counting those seconds made the same process look
 * new (issue 34 item 5: "uptime went back to 1269 s", a member that never restarted).
 */
function uptimeReset(baseline: MemberBaseline, now: MemberStatus): RestartFinding | null {
  const before = baseline.uptimeSeconds;
  const after = now.metrics.uptimeSeconds;
  if (before === null || after === null) return null;
  const expected = before + Math.max(0, (now.probeSentAt ?? now.polledAt) - baseline.polledAt) / 1000;
  if (after + UPTIME_SLACK_SECONDS >= expected) return null;
  return {
    evidence: 'uptime-reset',
    saw: `uptime went back to ${after} s (it was ${before} s, and would be about ${Math.round(expected)} s without a restart)`,
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
