import type { ContenderFlag, ContenderStatus } from '@keeper/shared';
import { FLAG_LABEL, STATUS_HINT, STATUS_TONE } from './lockWords';

/** The API's status word, exactly as spelled, in its tone. */
export function StatusBadge({ status }: { status: ContenderStatus }) {
  return (
    <span className={`badge tone-${STATUS_TONE[status]} lock-status`} data-status={status} title={`${status}: ${STATUS_HINT[status]}`}>
      {status}
    </span>
  );
}

/** Flags as short labels; each one's sentence on hover (the detail also lists them when a row is opened). */
export function FlagBadges({ flags, max = flags.length }: { flags: readonly ContenderFlag[]; max?: number }) {
  if (flags.length === 0) return null;
  const shown = flags.slice(0, max);
  const more = flags.length - shown.length;
  return (
    <span className="lock-flags">
      {shown.map((f) => (
        <span key={f.kind} className="badge tone-degraded" data-flag={f.kind} title={f.message}>
          {FLAG_LABEL[f.kind]}
        </span>
      ))}
      {more > 0 && (
        <span
          className="muted lock-flags__more"
          title={flags
            .slice(max)
            .map((f) => f.message)
            .join('\n')}
        >
          +{more}
        </span>
      )}
    </span>
  );
}
