/** The bar, the headline sentence, the time so far and an estimate of what is left. */
import type { UpgradeProgress, UpgradeState } from '@keeper/shared';
import { formatDuration } from '../../lib/time';
import { UPGRADE_TONE } from './upgradeWords';

export function UpgradeProgressBar({ progress, state }: { progress: UpgradeProgress; state: UpgradeState }) {
  const percent = Math.round(progress.fraction * 100);
  const running = state === 'running' || state === 'paused';
  const estimate =
    !running || progress.remainingMs === null
      ? running
        ? 'an estimate after the first member'
        : null
      : progress.remainingMs < 1000
        ? 'about to finish'
        : `about ${formatDuration(progress.remainingMs)} left`;
  return (
    <div className={`upgrade-progress tone-${UPGRADE_TONE[state]}`}>
      <p className="upgrade-progress__sentence" aria-live="polite">
        {progress.sentence}
      </p>
      <div
        className="progress"
        role="progressbar"
        aria-label="Upgrade progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${progress.finishedSteps} of ${progress.totalSteps} members, ${percent}%`}
      >
        <div className="progress__fill" style={{ width: `${percent}%` }} />
      </div>
      <p className="upgrade-progress__figures muted">
        <span>
          {progress.finishedSteps} of {progress.totalSteps} members
        </span>
        <span>{formatDuration(progress.elapsedMs)} elapsed</span>
        {estimate && <span>{estimate}</span>}
      </p>
    </div>
  );
}
