/**
 * A started upgrade as everyone sees it, live: the headline and bar, a paused or failed
 * upgrade's reason as an alert, an upgrade done with exceptions in amber with each member and its
 * build, a manual restart's instruction, and a timeline per member. Admins get Pause / Resume /
 * Abort and the steps' own actions (restart again, skip, mark done) and read the restart commands;
 * viewers and share links read the rest.
 */
import { useState } from 'react';
import {
  currentSteps,
  exceptionsOf,
  manualInstruction,
  memberName,
  phaseOf,
  stepTitle,
  type ConsoleSessionSnapshot,
  type EnsembleHealth,
  type UpgradeAction,
  type UpgradeAnswer,
  type UpgradeStep,
} from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../lib/time';
import { Callout } from '../../ui/Callout';
import { useSubmit } from '../../ui/useSubmit';
import { AbortDialog } from './AbortDialog';
import { AroundUpgrade } from './AroundUpgrade';
import { SkipStepDialog } from './SkipStepDialog';
import { StepTimeline } from './StepTimeline';
import { UpgradeProgressBar } from './UpgradeProgressBar';
import { upgradeAction, upgradeStepAction, useAdminCommands } from './upgradesApi';
import { upgradeErrorText } from './upgradeErrors';
import { RestartNote } from './RestartNote';
import { isActive, UPGRADE_TONE, upgradeWord } from './upgradeWords';

/** Waiting on the operator: a manual restart asked for and not yet seen. */
const awaitsManualRestart = (s: UpgradeStep) => s.restartMethod === 'manual' && s.restartRequestedAt !== null && phaseOf(s) === 'restarting';
/** What the server accepts for "Mark done": a restart asked for and not yet seen. */
const mayMarkDone = (s: UpgradeStep) => s.restartRequestedAt !== null && phaseOf(s) === 'restarting';
/** "Restart member 2, zk2:2181, now." out of the shared instruction: the rest is said beside it, with what this person may do. */
const firstSentence = (text: string) => text.split('. ')[0]! + '.';
const isOpen = (s: UpgradeStep) => s.state !== 'done' && s.state !== 'skipped' && s.state !== 'failed';
/** What the server accepts for "Restart again": a paused step whose restart was asked for. */
const mayRestartAgain = (s: UpgradeStep) => s.state === 'paused' && s.restartRequestedAt !== null;

/** Each member that keeps the upgrade from being simply done, with its build: amber, never green. */
function Exceptions({ upgrade }: { upgrade: UpgradeAnswer }) {
  const exceptions = exceptionsOf(upgrade.recheck);
  if (exceptions.length === 0) return null;
  const atEnd = upgrade.recheck?.why === 'end';
  return (
    <Callout tone="degraded" role={atEnd ? 'status' : 'alert'} className="upgrade-exceptions">
      <strong>{atEnd ? 'Done with exceptions' : 'Checked again on resuming'}</strong>
      <p>
        {atEnd
          ? 'Every step ended, and each member was checked again at the end; these are not where the upgrade was to leave them:'
          : 'Keeper checked the members of the finished steps again; these are no longer where their step left them:'}
      </p>
      <ul className="upgrade-exceptions__list">
        {exceptions.map((m) => (
          <li key={m.address}>{m.saw}.</li>
        ))}
      </ul>
      <p>{atEnd ? 'Plan a new upgrade to restart them, or look at them by hand.' : 'Unless they are brought back, the upgrade ends “done with exceptions”.'}</p>
    </Callout>
  );
}

export function RunningUpgrade({
  ensemble,
  upgrade,
  admin,
  live,
  onAnswer,
  health,
  session,
}: {
  ensemble: string;
  upgrade: UpgradeAnswer;
  admin: boolean;
  live: boolean;
  onAnswer: (answer: UpgradeAnswer) => void;
  /** The poller's latest, for the connection counts; the console's session, for where Keeper's own client is. */
  health?: EnsembleHealth | undefined;
  session?: ConsoleSessionSnapshot | undefined;
}) {
  const { busy, error, submit } = useSubmit(upgradeErrorText);
  const [dialog, setDialog] = useState<{ kind: 'abort' } | { kind: 'skip'; step: UpgradeStep } | null>(null);
  const active = isActive(upgrade);
  const currentList = active ? currentSteps(upgrade) : [];
  const current = new Set(currentList.map((s) => s.address));
  const manual = upgrade.state === 'running' || upgrade.state === 'paused' ? upgrade.steps.filter(awaitsManualRestart) : [];
  const controls = admin && active;
  const notLive = live ? undefined : 'Not while the data is not live: what it would act on is not known to be current';

  const run = (request: () => Promise<UpgradeAnswer>) => submit(request, onAnswer);
  const act = (action: UpgradeAction) => run(() => upgradeAction(ensemble, upgrade.id, action));
  const markDone = (step: UpgradeStep) => run(() => upgradeStepAction(ensemble, upgrade.id, step.address, 'markDone'));
  const restartAgain = (step: UpgradeStep) => run(() => upgradeStepAction(ensemble, upgrade.id, step.address, 'restartAgain'));
  const commands = useAdminCommands(ensemble, upgrade, admin);

  return (
    <section className="upgrade-panel" aria-label="The upgrade">
      <h2 className="section-title">
        <span className={`status tone-${UPGRADE_TONE[upgrade.state]}`}>{upgradeWord(upgrade)}</span>{' '}
        {upgrade.mode === 'full' ? 'Full restart' : 'Rolling restart'}
        {upgrade.startedAt !== null && (
          <span className="muted upgrade-panel__when">
            {' '}
            started{' '}
            <time dateTime={new Date(upgrade.startedAt).toISOString()} title={formatAbsolute(upgrade.startedAt)}>
              {formatClock(upgrade.startedAt)}
            </time>
            {upgrade.createdBy ? ` by ${upgrade.createdBy}` : ''}
          </span>
        )}
      </h2>
      <UpgradeProgressBar progress={upgrade.progress} state={upgrade.state} />
      {(upgrade.state === 'paused' || upgrade.state === 'failed') && (
        <Callout tone={upgrade.state === 'failed' ? 'lost' : 'degraded'} role="alert">
          <strong>{upgrade.state === 'failed' ? 'The upgrade failed' : 'The upgrade is paused'}</strong>
          <p>{upgrade.reason ?? 'No reason was recorded.'}</p>
          {upgrade.state === 'paused' && <p>Nothing else is restarted until it is resumed{admin ? '' : ' by an admin'}.</p>}
        </Callout>
      )}
      <Exceptions upgrade={upgrade} />
      {manual.map((step) => (
        <Callout key={step.address} tone="degraded" role="status" className="upgrade-manual">
          <strong className="upgrade-manual__do">{firstSentence(manualInstruction(step))}</strong>
          <p>Keeper notices the restart on its own{admin ? '; once you have restarted it, you can also mark it done.' : '.'}</p>
          {controls && (
            <div>
              <button type="button" className="btn btn--primary btn--small" disabled={busy || !live} title={notLive} onClick={() => markDone(step)}>
                Mark done
              </button>
            </div>
          )}
        </Callout>
      ))}
      <AroundUpgrade upgrade={upgrade} current={currentList} health={health} session={session} />
      <RestartNote method={upgrade.restartMethod} targetVersion={upgrade.targetVersion} note={upgrade.note} />
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Refused</strong>
          <p>{error}</p>
        </Callout>
      )}
      {controls && (
        <div className="upgrade-panel__controls">
          {upgrade.state === 'running' && (
            <button type="button" className="btn btn--outline" disabled={busy || !live} title={notLive} onClick={() => act('pause')}>
              Pause
            </button>
          )}
          {upgrade.state === 'paused' && (
            <button type="button" className="btn btn--outline btn--primary" disabled={busy || !live} title={notLive} onClick={() => act('resume')}>
              Resume
            </button>
          )}
          {upgrade.state === 'paused' &&
            upgrade.steps.filter(mayRestartAgain).map((step) => (
              <button
                key={step.address}
                type="button"
                className="btn btn--outline"
                disabled={busy || !live}
                title={notLive ?? 'Start this step over: its gates are checked, then the member is restarted again'}
                onClick={() => restartAgain(step)}
              >
                Restart {memberName(step)} again
              </button>
            ))}
          <button type="button" className="btn btn--outline" disabled={busy} onClick={() => setDialog({ kind: 'abort' })}>
            Abort…
          </button>
        </div>
      )}
      <div className="members upgrade-steps">
        {upgrade.steps.map((step) => (
          <StepTimeline
            key={step.address}
            step={step}
            current={current.has(step.address)}
            admin={admin}
            command={commands?.get(step.address) ?? step.command}
            actions={
              controls && isOpen(step) ? (
                <>
                  {mayRestartAgain(step) && (
                    <button
                      type="button"
                      className="btn btn--outline btn--small"
                      disabled={busy || !live}
                      title={notLive ?? 'Start this step over: its gates are checked, then the member is restarted again'}
                      onClick={() => restartAgain(step)}
                    >
                      Restart again
                    </button>
                  )}
                  {mayMarkDone(step) && !awaitsManualRestart(step) && (
                    <button type="button" className="btn btn--outline btn--small" disabled={busy || !live} title={notLive} onClick={() => markDone(step)}>
                      Mark restarted
                    </button>
                  )}
                  <button
                    type="button"
                    className="btn btn--outline btn--small"
                    disabled={busy}
                    aria-label={`Skip ${stepTitle(step)}…`}
                    onClick={() => setDialog({ kind: 'skip', step })}
                  >
                    Skip…
                  </button>
                </>
              ) : undefined
            }
          />
        ))}
      </div>
      {dialog?.kind === 'abort' && <AbortDialog ensemble={ensemble} upgrade={upgrade} onClose={() => setDialog(null)} onDone={onAnswer} />}
      {dialog?.kind === 'skip' && (
        <SkipStepDialog ensemble={ensemble} upgradeId={upgrade.id} step={dialog.step} onClose={() => setDialog(null)} onDone={onAnswer} />
      )}
    </section>
  );
}
