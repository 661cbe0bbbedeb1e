/**
 * One member's step as a card in the ensemble view's look: its state word and color, who it is
 * (the leader crowned), when each phase was reached, how the restart was seen ("uptime went back
 * to 0"), the restart command with its output (for admins; others see its exit code), and every
 * check it made with its time and what it saw. Admins get the step's own actions (mark a manual
 * restart done, restart again, skip with the typed phrase).
 */
import type { ReactNode } from 'react';
import { memberLabel, phaseOf, type Check, type RestartCommandRecord, type UpgradeStep } from '@keeper/shared';
import { formatAbsolute, formatClock, formatDuration } from '../../lib/time';
import { Crown } from '../../ui/icons';
import { CHECK_LABEL, EVIDENCE_WORDS, STEP_TONE, STEP_WORD } from './upgradeWords';

const PHASES: { key: keyof UpgradeStep['phases']; word: string }[] = [
  { key: 'gatesChecked', word: 'gates' },
  { key: 'restarting', word: 'restart' },
  { key: 'wentDown', word: 'down' },
  { key: 'back', word: 'back' },
  { key: 'synced', word: 'synced' },
];

function Clock({ at }: { at: number }) {
  return (
    <time className="mono" dateTime={new Date(at).toISOString()} title={formatAbsolute(at)}>
      {formatClock(at)}
    </time>
  );
}

/** The step keeps each check's latest outcome where it was first made: in time order it reads as the timeline it is. */
const byTime = (checks: readonly Check[]) => [...checks].sort((a, b) => a.at - b.at);

function CommandBlock({ command, label, admin }: { command: RestartCommandRecord; label: string; admin: boolean }) {
  if (command.withheld) {
    return (
      <p className="upgrade-step__command muted">
        Restart command:{' '}
        {command.exitCode === null ? (
          'no exit code (yet)'
        ) : (
          <>
            exited <span className="mono">{command.exitCode}</span>
          </>
        )}
        . {admin ? 'Reading its command line and output…' : 'Its command line and output are shown to admins only.'}
      </p>
    );
  }
  return (
    <div className="upgrade-step__command">
      {command.line && (
        <p className="mono">
          $ {command.line}
          {command.exitCode !== null && <span className="muted"> → exit {command.exitCode}</span>}
        </p>
      )}
      {command.outputTail && (
        <pre className="upgrade-step__output" aria-label={`Output of the restart of ${label}`}>
          {command.outputTail}
        </pre>
      )}
    </div>
  );
}

export function StepTimeline({
  step,
  current,
  actions,
  command = step.command,
  admin = false,
}: {
  step: UpgradeStep;
  current: boolean;
  actions?: ReactNode;
  /** The restart command as an admin reads it; the step's own (withheld for non-admins) otherwise. */
  command?: RestartCommandRecord | null;
  admin?: boolean;
}) {
  const label = memberLabel(step);
  const took = step.startedAt !== null && step.finishedAt !== null ? formatDuration(step.finishedAt - step.startedAt) : null;
  const phase = phaseOf(step);
  return (
    <article
      className={`member upgrade-step tone-${STEP_TONE[step.state]}${current ? ' is-current' : ''}`}
      aria-label={label}
      aria-current={current ? 'step' : undefined}
    >
      <header className="member__head">
        <span className="status member__state">{STEP_WORD[step.state]}</span>
        {step.role === 'leader' && <Crown size={14} className="member__crown" />}
        <span className="upgrade-step__name">{label}</span>
        <span className="member__address mono">{step.address}</span>
        <span className="member__spacer" />
        {took && <span className="member__checked">took {took}</span>}
      </header>
      {step.reason && step.state !== 'skipped' && <p className="member__reason">{step.reason}</p>}
      {step.state === 'paused' && phase && <p className="note">Resumes at: {STEP_WORD[phase]}.</p>}
      {/* A paused step's actions stand by its reason: the card below them can be long. */}
      {actions && step.state === 'paused' && <div className="upgrade-step__actions upgrade-step__actions--top">{actions}</div>}
      <ol className="upgrade-step__phases" aria-label="Phases">
        {PHASES.map(({ key, word }) => {
          const at = step.phases[key];
          return (
            <li key={key} className={at === null ? 'is-future' : 'is-reached'}>
              <span className="upgrade-step__phase">{word}</span> {at === null ? <span className="muted">—</span> : <Clock at={at} />}
            </li>
          );
        })}
      </ol>
      {step.evidence && (
        <p className="upgrade-step__evidence">
          Restart seen: <strong>{EVIDENCE_WORDS[step.evidence]}</strong>
        </p>
      )}
      {command && <CommandBlock command={command} label={label} admin={admin} />}
      {step.checks.length > 0 && (
        <ol className="upgrade-checks" aria-label={`Checks of ${label}`}>
          {byTime(step.checks).map((c, i) => (
            <li key={`${c.id} ${c.at} ${i}`} className={`upgrade-check tone-${c.ok ? 'live' : 'lost'}`}>
              <Clock at={c.at} />
              <span className="status upgrade-check__word">{c.ok ? 'ok' : 'failing'}</span>
              <span className="upgrade-check__label">{CHECK_LABEL[c.id]}</span>
              <span className="upgrade-check__saw">{c.saw}</span>
            </li>
          ))}
        </ol>
      )}
      {actions && step.state !== 'paused' && <div className="upgrade-step__actions">{actions}</div>}
    </article>
  );
}
