/** How a job reads to an operator: progress numbers, speed, time left, and the final report. */
import type { JobSnapshot } from '@keeper/shared';
import { formatCount } from '../../lib/bytes';
import { formatDuration } from '../../lib/time';

import type { Tone } from '../../ui/tone';

export type { Tone };

/** 0..100, or null while the total is not known yet (the subtree is still being listed). */
export function percent(job: Pick<JobSnapshot, 'done' | 'total'>): number | null {
  if (job.total <= 0) return null;
  return Math.min(100, Math.floor((job.done / job.total) * 100));
}

/** How many nodes must be seen done, and over how long, before a pace (and a time left) is given. */
export const PACE_MIN_NODES = 300;
export const PACE_MIN_MS = 1_000;

/** The first progress this browser saw of a job: pace is measured from here, on this browser's clock. */
export interface PaceBaseline {
  at: number;
  done: number;
}

/**
 * Nodes per second and time left, measured from progress actually seen: from the first
 * observation with work done to now, once a few hundred nodes went by in at least a second.
 * Never from startedAt: the listing before the first delete (and any clock skew between the
 * server and this browser) made the first estimate say "about 1 h 47 min" for a 22 s job.
 * Until then null: the view states the count without a time.
 */
export function pace(
  job: Pick<JobSnapshot, 'done' | 'total'>,
  now: number,
  baseline: PaceBaseline | null,
): { perSecond: number; leftMs: number | null } | null {
  if (baseline === null) return null;
  const measured = job.done - baseline.done;
  const elapsed = now - baseline.at;
  if (measured < PACE_MIN_NODES || elapsed < PACE_MIN_MS) return null;
  const perSecond = measured / (elapsed / 1000);
  const left = job.total - job.done;
  return { perSecond, leftMs: perSecond > 0 && left > 0 ? (left / perSecond) * 1000 : null };
}

const VERB: Record<JobSnapshot['kind'], { did: string; doing: string; noun: string }> = {
  recursiveDelete: { did: 'Deleted', doing: 'deleted', noun: 'nodes' },
  import: { did: 'Applied', doing: 'applied', noun: 'changes' },
  lockScan: { did: 'Listed', doing: 'listed', noun: 'znodes' },
};

export function progressLine(job: JobSnapshot): string {
  const v = VERB[job.kind];
  if (job.total === 0 && job.state === 'running')
    return job.kind === 'recursiveDelete' ? 'Listing the subtree…' : job.kind === 'lockScan' ? 'Starting the scan…' : 'Reading the target…';
  return `${formatCount(job.done)} of ${formatCount(job.total)} ${v.noun} ${v.doing}`;
}

export interface JobReport {
  tone: Tone;
  /** The outcome word: completed, cancelled, failed, running. */
  word: string;
  headline: string;
  /** Why it stopped and what is left, in the operator's terms. */
  details: string[];
}

function remainingWords(job: JobSnapshot): string | null {
  if (job.remainingTotal === undefined) return null;
  if (job.remainingTotal === 0) return 'Nothing remains: the subtree is gone.';
  const how =
    job.remainingVerified === false
      ? 'from the job’s own bookkeeping: ZooKeeper could not be read back (the connection was lost), so check again once it is reachable'
      : 'read back from ZooKeeper after stopping';
  return `${formatCount(job.remainingTotal)} ${job.remainingTotal === 1 ? 'node remains' : 'nodes remain'} (${how}).`;
}

function summaryWords(job: JobSnapshot): string | null {
  const s = job.summary;
  if (!s || job.kind !== 'import') return null;
  const parts = [`${formatCount(s.created ?? 0)} created`, `${formatCount(s.updated ?? 0)} updated`, `${formatCount(s.unchanged ?? 0)} unchanged`];
  if (s.conflicts) parts.push(`${formatCount(s.conflicts)} ${s.conflicts === 1 ? 'conflict' : 'conflicts'} left alone`);
  if (s.failed) parts.push(`${formatCount(s.failed)} failed`);
  return `${parts.join(', ')}.`;
}

export function jobReport(job: JobSnapshot): JobReport {
  const v = VERB[job.kind];
  const took = job.finishedAt !== undefined ? ` in ${formatDuration(Math.max(1000, job.finishedAt - job.startedAt))}` : '';
  const extra = [summaryWords(job)].filter((s): s is string => s !== null);
  switch (job.state) {
    case 'running':
      return { tone: 'live', word: job.cancelRequested ? 'cancelling' : 'running', headline: progressLine(job), details: extra };
    case 'done':
      return { tone: 'live', word: 'completed', headline: `${v.did} ${formatCount(job.done)} ${v.noun}${took}.`, details: extra };
    case 'cancelled':
      return {
        tone: 'degraded',
        word: 'cancelled',
        headline: `Cancelled after ${formatCount(job.done)} of ${formatCount(job.total)} ${v.noun}.`,
        details: [...extra, remainingWords(job)].filter((s): s is string => s !== null),
      };
    case 'failed':
      return {
        tone: 'lost',
        word: 'failed',
        headline: `Stopped after ${formatCount(job.done)} of ${formatCount(job.total)} ${v.noun}.`,
        details: [job.error ? `${job.error.message} (${job.error.code})` : null, ...extra, remainingWords(job)].filter((s): s is string => s !== null),
      };
    default: {
      const never: never = job.state;
      return never;
    }
  }
}
