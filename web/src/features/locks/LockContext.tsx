/**
 * What frames the list: how far the leak check can go yet (no `leaked` before two gatherings
 * 10 s apart), each herd with its fix, what Keeper watches, and what the last scan did.
 */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { LastScan, LeakCheck, LockHerd, LocksAnswer } from '@keeper/shared';
import { formatCount } from '../../lib/bytes';
import { useNow } from '../../lib/useNow';
import { Callout } from '../../ui/Callout';
import { RelativeTime } from '../../ui/RelativeTime';
import { plural } from '../../ui/format';
import { useSubmit } from '../../ui/useSubmit';
import { errorText } from '../../lib/api';
import { cancelLockScan } from './locksApi';
import { lockUrl } from './urls';
import '../../ui/callout.css';

export function LockContext({ ensemble, data, admin = false }: { ensemble: string; data: LocksAnswer; admin?: boolean }) {
  return (
    <div className="locks__context">
      <LeakCheckLine check={data.leakCheck} />
      <HerdList ensemble={ensemble} herds={data.herds} />
      <p className="note locks__watching">
        {data.roots.length === 0 ? (
          'No configured lock roots'
        ) : (
          <>
            Roots <span className="mono">{data.roots.join(', ')}</span>
          </>
        )}{' '}
        · tracking {formatCount(data.tracked)} of {formatCount(data.trackLimit)} lock directories
        {data.tracked >= data.trackLimit && <span className="figure--warn"> (full: no more can be tracked)</span>}
      </p>
      {data.lastScan && <LastScanLine ensemble={ensemble} scan={data.lastScan} admin={admin} />}
    </div>
  );
}

export function LeakCheckLine({ check }: { check: LeakCheck }) {
  return (
    <p className="note locks__leakcheck" data-ready={check.ready}>
      <span className={`status ${check.ready ? 'tone-live' : 'tone-stale'}`}>{check.ready ? 'leak check ready' : 'leak check not ready'}</span> {check.sentence}
    </p>
  );
}

export function HerdList({ ensemble, herds }: { ensemble: string; herds: readonly LockHerd[] }) {
  if (herds.length === 0) return null;
  return (
    <section className="locks__herds" aria-label="Herds">
      {herds.map((h) => (
        <Callout key={h.path} tone="degraded" role="status">
          <strong>
            Herd on <span className="mono">{h.path}</span>
          </strong>
          <p>{h.message}</p>
          {(h.context || h.lock) && (
            <p className="muted">
              {h.context}{' '}
              {h.lock && (
                <Link to={lockUrl(ensemble, h.lock)} className="mono">
                  open {h.lock}
                </Link>
              )}
            </p>
          )}
        </Callout>
      ))}
    </section>
  );
}

const SCAN_STATE: Record<LastScan['state'], string> = { running: 'running', done: 'done', cancelled: 'cancelled', failed: 'failed' };
const SCAN_TONE: Record<LastScan['state'], string> = { running: 'tone-live', done: 'tone-live', cancelled: 'tone-degraded', failed: 'tone-lost' };

/** A replica stores a running scan's progress about once a second: past 3 s without it, the line says so (its replica may be gone). */
const PROGRESS_LATE_MS = 3_000;

function ProgressAge({ at }: { at: number }) {
  const late = useNow() - at > PROGRESS_LATE_MS;
  return (
    <span className={late ? 'figure--warn' : undefined}>
      {' '}
      · progress as of <RelativeTime at={at} />
      {late && ': its replica has stored none since; if it has stopped, another replica takes the scan over once its session ends'}
    </span>
  );
}

/**
 * With replicas, a running scan is cancelled from here whichever replica runs it (the jobs dock's
 * Cancel reaches only this replica's own jobs). The answer is said as the server words it:
 * "stopped" only once the running replica's record says so.
 */
function CancelScan({ ensemble, scanId, canAsk, running }: { ensemble: string; scanId: string; canAsk: boolean; running: boolean }) {
  const { busy, error, submit } = useSubmit(errorText);
  const [answer, setAnswer] = useState<string | null>(null);
  return (
    <span className="locks__scan-cancel">
      {canAsk && (
        <>
          {' '}
          <button
            type="button"
            className="btn btn--outline btn--small"
            disabled={busy}
            onClick={() =>
              submit(
                () => cancelLockScan(ensemble, scanId),
                (a) => setAnswer(a.message),
              )
            }
          >
            {busy ? 'Cancelling…' : 'Cancel scan'}
          </button>
        </>
      )}
      {/* Once the record says the scan ended, the line says it (and at whose request): the answer would only repeat it. */}
      {answer && running && (
        <span role="status" className="muted">
          {' '}
          · {answer}
        </span>
      )}
      {error && (
        <span role="alert" className="figure--warn">
          {' '}
          Not cancelled: {error}
        </span>
      )}
    </span>
  );
}

function CancelRequestLine({ scan }: { scan: LastScan }) {
  const asked = scan.cancelRequest;
  if (!asked) return null;
  return scan.state === 'running' ? (
    <span className="figure--warn">
      {' '}
      · cancel requested by {asked.by} on replica <span className="mono">{asked.replica}</span> <RelativeTime at={asked.at} />, not yet confirmed by the replica
      running it
    </span>
  ) : (
    <span>
      {' '}
      · {scan.state === 'cancelled' ? 'cancelled' : scan.state} at the request of {asked.by} on replica <span className="mono">{asked.replica}</span>
    </span>
  );
}

function LastScanLine({ ensemble, scan, admin }: { ensemble: string; scan: LastScan; admin: boolean }) {
  return (
    <div className="note locks__scan">
      <span className={`status ${SCAN_TONE[scan.state]}`}>scan {SCAN_STATE[scan.state]}</span> Last scan of <span className="mono">{scan.path}</span>,{' '}
      <RelativeTime at={scan.finishedAt ?? scan.startedAt} />: {plural(scan.visited, 'znode')} listed, {plural(scan.found, 'lock')} found,{' '}
      {plural(scan.requests, 'ZooKeeper request')}
      {scan.runBy && (
        <>
          {' '}
          · {scan.state === 'running' ? 'running on' : 'run by'} replica <span className="mono">{scan.runBy.name}</span>
        </>
      )}
      {scan.state === 'running' && scan.updatedAt !== undefined && <ProgressAge at={scan.updatedAt} />}
      <CancelRequestLine scan={scan} />
      {/* With replicas `jobId` is the scan's id (lastScanOf); a single Keeper's scan is cancelled from the jobs dock. */}
      {admin && scan.runBy && (
        <CancelScan
          key={scan.jobId}
          ensemble={ensemble}
          scanId={scan.jobId}
          canAsk={scan.state === 'running' && !scan.cancelRequest}
          running={scan.state === 'running'}
        />
      )}
      {scan.handovers?.map((h) => (
        <span key={h.at} className="locks__scan-handover">
          {' '}
          · {h.sentence}
        </span>
      ))}
      {scan.skippedTotal > 0 && (
        <details className="locks__skipped">
          <summary>{plural(scan.skippedTotal, 'place')} not looked into</summary>
          <ul>
            {scan.skipped.map((s) => (
              <li key={s.path}>
                <span className="mono">{s.path}</span> <span className="muted">{s.reason}</span>
              </li>
            ))}
            {scan.skippedTotal > scan.skipped.length && <li className="muted">and {formatCount(scan.skippedTotal - scan.skipped.length)} more</li>}
          </ul>
        </details>
      )}
    </div>
  );
}
