/**
 * One resize as everyone sees it, live on the `reconfig` topic: its state, the size before and
 * after, a progress bar over its steps, each step's ZooKeeper command with the version it was sent
 * under and the one it made, and what the check after it saw. Planned: the preflight, how to start
 * each member to add, the risks and their typed phrase. Admins start, pause, resume or abort it;
 * viewers and share links read the same panel without the buttons.
 */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { reconfigConfirmationMatches, type ReconfigAction, type ReconfigWorkflow } from '@keeper/shared';
import { resizeUrl } from '../../../app/urls/ensembleUrls';
import { formatAbsolute, formatClock, formatDuration } from '../../../lib/time';
import { Callout } from '../../../ui/Callout';
import { CopyButton } from '../../../ui/CopyButton';
import { TypedConfirm } from '../../../ui/TypedConfirm';
import { useSubmit } from '../../../ui/useSubmit';
import { AbortResizeDialog } from './AbortResizeDialog';
import { Checks } from './Checks';
import { JoinerStarts } from './JoinerStarts';
import { SizeChange } from './PlanPreview';
import { reconfigAction, resizeErrorText } from './resizeApi';
import { isActive, progressSentence, RESIZE_TONE, shortId, stateWord, STEP_TONE, STEP_WORD, stepsDone } from './resizeWords';

export function Workflow({
  ensemble,
  wf,
  admin,
  live,
  serverNow,
  onAnswer,
}: {
  ensemble: string;
  wf: ReconfigWorkflow;
  admin: boolean;
  /** The socket is live: the panel shows the workflow as it is now, and may act on it. */
  live: boolean;
  serverNow: number;
  onAnswer: (wf: ReconfigWorkflow) => void;
}) {
  const [typed, setTyped] = useState('');
  const [aborting, setAborting] = useState(false);
  const { busy, error, submit } = useSubmit(resizeErrorText);
  // Pause has a request of its own: it must be reachable while a start is still answering (its
  // preflight takes seconds), and then it makes the resize start paused (issue 34 item 8).
  const pauser = useSubmit(resizeErrorText);
  const act = (action: ReconfigAction) =>
    submit(() => reconfigAction(ensemble, wf.id, action, action === 'start' && wf.confirmationPhrase ? { confirmation: typed.trim() } : {}), onAnswer);
  const pause = () => pauser.submit(() => reconfigAction(ensemble, wf.id, 'pause', {}), onAnswer);
  const confirmed = reconfigConfirmationMatches(wf.confirmationPhrase, typed);
  const url = resizeUrl(ensemble, wf.id);
  const canAct = admin && live && !busy;
  const starting = wf.state === 'planned' && busy;
  const canPause = admin && live && !pauser.busy && (wf.state === 'running' || starting);

  return (
    <form
      className={`resize-panel resize-workflow tone-${RESIZE_TONE[wf.state]}`}
      aria-label="The resize"
      onSubmit={(e) => {
        e.preventDefault();
        if (wf.state === 'planned' && canAct && confirmed) act('start');
      }}
    >
      <h2 className="section-title resize-workflow__title">
        <span className="status">{stateWord(wf)}</span> Resize <Link to={url}>{shortId(wf.id)}</Link>
        <CopyButton text={`${window.location.origin}${url}`} label="Copy a link to this resize" />
      </h2>
      <p className="resize-workflow__meta muted">
        planned{wf.createdBy ? ` by ${wf.createdBy}` : ''} at{' '}
        <time dateTime={new Date(wf.createdAt).toISOString()} title={formatAbsolute(wf.createdAt)}>
          {formatClock(wf.createdAt)}
        </time>{' '}
        from configuration version <span className="mono">{wf.fromConfig}</span>
        {wf.verifiedVersion !== wf.fromConfig && (
          <>
            , verified up to <span className="mono">{wf.verifiedVersion}</span>
          </>
        )}
        {wf.confirmedBy && <>; risk accepted by {wf.confirmedBy}</>}
      </p>
      {wf.before && wf.after && <SizeChange before={wf.before} after={wf.after} state={wf.state} />}
      <p className="resize-sentence">{wf.sizeSentence}</p>
      {wf.state !== 'planned' && <Progress wf={wf} serverNow={serverNow} />}
      {wf.reason && wf.state !== 'done' && (
        <Callout tone={RESIZE_TONE[wf.state]} role={wf.state === 'failed' || wf.state === 'paused' ? 'alert' : 'status'}>
          <strong>{wf.state === 'paused' ? 'Paused' : wf.state === 'failed' ? 'Stopped' : wf.state === 'aborted' ? 'Aborted' : 'Note'}</strong>
          <p>{wf.reason}</p>
        </Callout>
      )}
      <StepList wf={wf} />
      {wf.state === 'planned' && (
        <>
          <h3 className="section-title">Preflight</h3>
          <Checks checks={wf.preflight} label="Preflight checks" empty="The preflight has not run yet." />
        </>
      )}
      {(wf.state === 'planned' || wf.state === 'paused') && <JoinerStarts wf={wf} admin={admin} />}
      {wf.state === 'planned' && wf.risks.length > 0 && (
        <Callout tone="degraded" role="note">
          <strong>A risk to accept</strong>
          <ul className="resize-list">
            {wf.risks.map((r) => (
              <li key={r.id}>{r.sentence}</li>
            ))}
          </ul>
        </Callout>
      )}
      {admin && wf.state === 'planned' && wf.confirmationPhrase && (
        <TypedConfirm
          className="resize-confirm"
          phrase={wf.confirmationPhrase}
          value={typed}
          onChange={setTyped}
          label={(p) => <>Type {p} to accept the risk</>}
        />
      )}
      {(error ?? pauser.error) && (
        <Callout tone="lost" role="alert">
          <strong>Refused</strong>
          <p>{error ?? pauser.error}</p>
        </Callout>
      )}
      {admin && isActive(wf) ? (
        <div className="form-actions">
          <span className="form-actions__hint">
            {wf.state === 'planned'
              ? 'The preflight runs again when it starts; each step is checked before the next.'
              : wf.state === 'running'
                ? 'Pause stops before the next step: a step already sent finishes and is verified.'
                : 'Resume sends the next step under the version Keeper verified last.'}
          </span>
          {/* Never disabled by a request under way: an abort must be reachable at every moment. */}
          <button type="button" className="btn btn--outline" onClick={() => setAborting(true)}>
            {wf.state === 'planned' && !starting ? 'Discard…' : 'Abort…'}
          </button>
          {wf.state === 'planned' && (
            <button type="submit" className="btn btn--primary" disabled={!canAct || !confirmed} title={live ? undefined : 'Not while the data is not live'}>
              {busy ? 'Starting…' : 'Start'}
            </button>
          )}
          {(wf.state === 'running' || starting) && (
            <button type="button" className="btn btn--primary" disabled={!canPause} onClick={pause}>
              {pauser.busy ? 'Pausing…' : 'Pause'}
            </button>
          )}
          {wf.state === 'paused' && (
            <button type="button" className="btn btn--primary" disabled={!canAct} onClick={() => act('resume')}>
              {busy ? 'Resuming…' : 'Resume'}
            </button>
          )}
        </div>
      ) : (
        isActive(wf) && <p className="note">{wf.state === 'planned' ? 'An admin starts it.' : 'Following live; an admin can pause or abort it.'}</p>
      )}
      {aborting && <AbortResizeDialog ensemble={ensemble} wf={wf} onClose={() => setAborting(false)} onDone={onAnswer} />}
    </form>
  );
}

function Progress({ wf, serverNow }: { wf: ReconfigWorkflow; serverNow: number }) {
  const total = wf.steps.length;
  const done = stepsDone(wf);
  const percent = total === 0 ? 0 : Math.round((done / total) * 100);
  const firstSent = wf.steps.reduce<number | null>((min, s) => (s.sentAt !== null && (min === null || s.sentAt < min) ? s.sentAt : min), null);
  const end = wf.finishedAt ?? Math.max(serverNow, wf.updatedAt);
  // The step sent and being verified: drawn apart from the verified ones, so a run under way never looks idle.
  const inFlight = wf.state === 'running' && wf.steps.some((s) => s.state === 'sending' || s.state === 'verifying');
  return (
    <div className="resize-progress">
      <p className="resize-progress__sentence" aria-live="polite">
        {progressSentence(wf)}
      </p>
      <div
        className="progress"
        role="progressbar"
        aria-label="Resize progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${done} of ${total} steps verified`}
      >
        <div className="progress__fill" style={{ width: `${percent}%` }} />
        {inFlight && <div className="resize-progress__current" style={{ left: `${percent}%`, width: `${Math.round(100 / total)}%` }} />}
      </div>
      <p className="resize-progress__figures muted">
        <span>
          {done} of {total} steps verified
        </span>
        {firstSent !== null &&
          (wf.finishedAt !== null ? (
            <span>took {tookText(Math.max(0, end - firstSent))} from the first step sent</span>
          ) : (
            <span>{formatDuration(Math.max(0, end - firstSent))} since the first step was sent</span>
          ))}
      </p>
    </div>
  );
}

/** "0.4 s" below 10 s (a resize step takes about a second), else the usual "2 min". */
const tookText = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms));

function StepList({ wf }: { wf: ReconfigWorkflow }) {
  return (
    <ol className="resize-steps" aria-label="Steps">
      {wf.steps.map((s) => (
        <li key={s.index} className={`resize-step tone-${STEP_TONE[s.state]}`}>
          <span className="resize-step__n">{s.index}.</span>
          <span className="status resize-step__state">{STEP_WORD[s.state]}</span>
          <code className="mono resize-step__cli">
            {s.zkCli}
            {s.fromConfig !== null && ` -v ${s.fromConfig}`}
          </code>
          <span className="resize-step__sentence">
            {s.sentence}
            {s.leader && <span className="chip tone-degraded">election</span>}
            {s.version !== null && (
              <span className="muted">
                {' '}
                · made version <span className="mono">{s.version}</span>
              </span>
            )}
            {s.attempts > 1 && <span className="muted"> · sent {s.attempts} times (replies lost)</span>}
            {s.doneAt !== null && (
              <span className="muted">
                {' '}
                · verified{' '}
                <time dateTime={new Date(s.doneAt).toISOString()} title={formatAbsolute(s.doneAt)}>
                  {formatClock(s.doneAt)}
                </time>
              </span>
            )}
          </span>
          {s.reason && <span className="resize-step__reason">{s.reason}</span>}
          {s.checks.length > 0 && (
            <details className="resize-step__checks" open={s.state === 'verifying' || s.checks.some((c) => !c.ok)}>
              <summary>What the check after it saw</summary>
              <Checks checks={s.checks} label={`Checks after step ${s.index}`} empty="" />
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}
