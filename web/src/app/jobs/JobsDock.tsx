/** Hidden jobs, bottom right: progress, Cancel, and the outcome until dismissed. Admins only. */
import { useState } from 'react';
import type { JobSnapshot } from '@keeper/shared';
import { ApiError, errorText } from '../../lib/api';
import { Close } from '../../ui/icons';
import { useIsAdmin } from '../me';
import { cancelJob, useJob } from './jobs';
import { jobReport, percent } from './jobView';
import { undockJob, useDockedJobs } from './jobsDock';
import './jobs.css';

export function JobsDock() {
  const ids = useDockedJobs();
  const admin = useIsAdmin();
  if (!admin || ids.length === 0) return null;
  return (
    <aside className="jobs-dock" aria-label="Running jobs">
      {ids.map((id) => (
        <DockedJob key={id} id={id} />
      ))}
    </aside>
  );
}

const KIND: Record<JobSnapshot['kind'], string> = { recursiveDelete: 'Deleting', import: 'Importing into', lockScan: 'Scanning for locks under' };

function DockedJob({ id }: { id: string }) {
  const job = useJob(id);
  const [error, setError] = useState<string | null>(null);
  if (!job) return null;
  const report = jobReport(job);
  const pct = percent(job);
  const running = job.state === 'running';
  return (
    <div className={`jobs-dock__job${running ? '' : ` tone-${report.tone}`}`} role="status">
      <div className="jobs-dock__head">
        <span className="jobs-dock__title">
          {KIND[job.kind]} <span className="mono">{job.path}</span>
        </span>
        {!running && (
          <button type="button" className="btn btn--icon" aria-label="Dismiss" onClick={() => undockJob(id)}>
            <Close size={14} />
          </button>
        )}
      </div>
      <div className="progress" aria-hidden="true">
        <div className="progress__fill" style={{ width: `${pct ?? 0}%`, ...(running ? {} : { background: 'var(--c)' }) }} />
      </div>
      <div className="jobs-dock__line">
        <span className={`status${running ? ' tone-live' : ''}`}>{report.word}</span>
        <span className="muted">{report.headline}</span>
        {running && !job.cancelRequested && (
          <button
            type="button"
            className="btn btn--outline btn--small"
            onClick={() =>
              cancelJob(id).catch((e: unknown) => {
                if (!(e instanceof ApiError && e.code === 'JOB_FINISHED')) setError(errorText(e));
              })
            }
          >
            Cancel
          </button>
        )}
      </div>
      {!running && report.details.length > 0 && <p className="jobs-dock__detail muted">{report.details.join(' ')}</p>}
      {error && <p className="jobs-dock__detail field__error">{error}</p>}
    </div>
  );
}
