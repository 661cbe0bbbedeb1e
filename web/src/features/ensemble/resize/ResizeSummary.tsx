/**
 * The sizing view's resize block: the resize under way (its state, a bar over its steps and a link
 * to follow it), the last one's outcome, and the way in: "Plan a resize" for admins, "Follow" or the
 * history for everyone else.
 */
import { Link } from 'react-router-dom';
import type { ReconfigWorkflow } from '@keeper/shared';
import { resizeUrl } from '../../../app/urls/ensembleUrls';
import type { ReconfigEntry } from './reconfigTopic';
import { isActive, progressSentence, RESIZE_TONE, stateWord, stepsDone } from './resizeWords';

export function ResizeSummary({ ensemble, entry, admin }: { ensemble: string; entry: ReconfigEntry | undefined; admin: boolean }) {
  const wf: ReconfigWorkflow | null = entry?.kind === 'reconfig' ? entry.reconfig : null;
  const active = wf !== null && isActive(wf);
  return (
    <section className="sizing__block" aria-label="Resize">
      <h3 className="section-title">Resize</h3>
      {entry?.kind === 'refused' ? (
        <p className="note">{entry.message}</p>
      ) : wf === null ? (
        <p className="note">
          {entry === undefined ? 'Reading…' : 'Add or remove members, or change a role, with ZooKeeper’s dynamic reconfiguration, one verified step at a time.'}
        </p>
      ) : (
        <div className={`sizing__resize tone-${RESIZE_TONE[wf.state]}`}>
          <p className="sizing__resize-head">
            <span className="status">{stateWord(wf)}</span> <span>{wf.sizeSentence}</span>
          </p>
          {wf.state !== 'planned' && wf.steps.length > 0 && (
            <div
              className="progress"
              role="progressbar"
              aria-label="Resize progress"
              aria-valuemin={0}
              aria-valuemax={wf.steps.length}
              aria-valuenow={stepsDone(wf)}
              aria-valuetext={progressSentence(wf)}
            >
              <div className="progress__fill" style={{ width: `${Math.round((stepsDone(wf) / wf.steps.length) * 100)}%` }} />
            </div>
          )}
          <p className="muted sizing__resize-progress">{progressSentence(wf)}</p>
        </div>
      )}
      <p className="sizing__resize-actions">
        {active ? (
          <Link className="btn btn--small btn--outline" to={resizeUrl(ensemble, wf.id)}>
            {admin ? 'Open the resize' : 'Follow the resize'}
          </Link>
        ) : admin ? (
          <Link className="btn btn--small btn--primary" to={resizeUrl(ensemble)}>
            Plan a resize…
          </Link>
        ) : (
          <Link to={resizeUrl(ensemble)}>Resizes</Link>
        )}
      </p>
    </section>
  );
}
