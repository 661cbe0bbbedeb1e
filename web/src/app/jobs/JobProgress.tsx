/**
 * A long job while it runs (bar, done/total, the node being worked on, pace, Cancel) and after
 * it ends (completed, cancelled with what remains, failed with why and what remains).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { JobSnapshot } from '@keeper/shared';
import { ApiError, errorText } from '../../lib/api';
import { formatCount } from '../../lib/bytes';
import { formatDuration } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { CopyButton } from '../../ui/CopyButton';
import { RelativeTime } from '../../ui/RelativeTime';
import { cancelJob, jobQueryKey, useJob } from './jobs';
import { jobReport, pace, percent, type PaceBaseline } from './jobView';
import '../../ui/forms.css';
import '../../ui/callout.css';
import './jobs.css';

export function JobProgress({ jobId }: { jobId: string }) {
  const job = useJob(jobId);
  if (!job) {
    return (
      <p className="muted" aria-busy="true">
        Starting…
      </p>
    );
  }
  return <JobView job={job} />;
}

function JobView({ job }: { job: JobSnapshot }) {
  const now = useNow();
  const queryClient = useQueryClient();
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  // The first progress seen here: the pace is measured from it, never from the job's start.
  const [baseline, setBaseline] = useState<PaceBaseline | null>(null);
  if (baseline === null && job.done > 0 && job.state === 'running') setBaseline({ at: now, done: job.done });
  const report = jobReport(job);
  const pct = percent(job);
  const running = job.state === 'running';
  const speed = running ? pace(job, now, baseline) : null;

  const cancel = async () => {
    setAsking(true);
    setCancelError(null);
    try {
      queryClient.setQueryData(jobQueryKey(job.id), await cancelJob(job.id));
    } catch (e) {
      // Finished meanwhile: the final snapshot is on its way, nothing to say.
      if (!(e instanceof ApiError && e.code === 'JOB_FINISHED')) setCancelError(errorText(e));
    } finally {
      setAsking(false);
    }
  };

  const remaining = job.remaining ?? [];
  const moreRemaining = (job.remainingTotal ?? remaining.length) - remaining.length;

  return (
    <section className={`job${running ? '' : ` job--${job.state} tone-${report.tone}`}`} aria-label="Job progress">
      <div className="job__head">
        <span className={`status ${running ? 'tone-live' : ''}`}>{report.word}</span>
        <span className="job__headline">{report.headline}</span>
        {pct !== null && <span className="job__pct mono">{pct} %</span>}
      </div>
      <div
        className={`progress${pct === null && running ? ' is-indeterminate' : ''}`}
        role="progressbar"
        aria-label={report.headline}
        aria-valuemin={0}
        aria-valuemax={Math.max(job.total, 1)}
        aria-valuenow={job.done}
        aria-valuetext={report.headline}
      >
        <div className="progress__fill" style={{ width: `${pct ?? 0}%` }} />
      </div>
      {running && (
        <>
          <p className="job__current mono" title={job.current ?? undefined}>
            {job.current ?? '\u00a0'}
          </p>
          <p className="job__meta muted">
            {speed ? `${formatCount(Math.round(speed.perSecond))} per second` : 'measuring pace…'}
            {speed?.leftMs ? ` · about ${formatDuration(speed.leftMs + 999)} left` : ''} · started by {job.startedBy} <RelativeTime at={job.startedAt} />
          </p>
          {job.cancelRequested ? (
            <p className="job__meta">Cancelling: the node in hand finishes, nothing new is started. Then Keeper reads back what remains.</p>
          ) : (
            <div className="job__actions">
              <button type="button" className="btn btn--outline" onClick={() => void cancel()} disabled={asking}>
                {asking ? 'Cancelling…' : 'Cancel'}
              </button>
              <span className="muted job__hint">Stops between nodes; what was done stays done.</span>
            </div>
          )}
          {cancelError && (
            <p className="job__meta" role="alert">
              <span className="status tone-lost">not cancelled</span> {cancelError}
            </p>
          )}
        </>
      )}
      {!running && report.details.length > 0 && (
        <ul className="job__details tinted-edge">
          {report.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      {!running && remaining.length > 0 && (
        <div className="job__remaining">
          <div className="job__remaining-head">
            <span className="section-title">Still there</span>
            <span className="muted">
              {moreRemaining > 0
                ? `first ${formatCount(remaining.length)} of ${formatCount(remaining.length + moreRemaining)}, deepest first`
                : 'deepest first'}
            </span>
            <CopyButton text={remaining.join('\n')} label="Copy remaining paths" />
          </div>
          <ul className="job__remaining-list mono" aria-label="Remaining nodes">
            {remaining.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
