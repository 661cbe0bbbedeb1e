/**
 * Beside the session badge: how the console reaches this ensemble and who ZooKeeper sees it as
 * ("TLS · sasl:keeper"), amber when TLS is not verified. Nothing for plain TCP without SASL.
 * The session's popover has the whole story (ConnectionFacts).
 */
import type { ConsoleConnectionFacts } from '@keeper/shared';
import { LockIcon } from '../../ui/icons';
import { connectionChip } from '../../app/consoleSession/connectionWords';

export function ConnectionChip({ facts, stale }: { facts: ConsoleConnectionFacts | undefined; stale: boolean }) {
  const chip = connectionChip(facts);
  if (!chip) return null;
  const tone = stale ? 'stale' : chip.warn ? 'degraded' : null;
  return (
    <span
      className={`connection-chip${tone ? ` tone-${tone}` : ''}${chip.warn ? ' connection-chip--warn' : ''}`}
      role="note"
      aria-label={chip.label}
      title={chip.label}
    >
      <LockIcon size={13} className="connection-chip__icon" />
      <span className="connection-chip__text mono">{chip.text}</span>
    </span>
  );
}
