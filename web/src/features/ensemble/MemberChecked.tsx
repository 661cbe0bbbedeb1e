/**
 * "checked 4 s ago" beside a member's state word: its age, ticking with the shared clock, the
 * exact time (and the next check, while it is backed off) on hover. Late checks stand out.
 */
import type { MemberStatus } from '@keeper/shared';
import { formatAbsolute } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { checkedAge } from './memberState';

export function MemberChecked({ member, pollIntervalMs }: { member: Pick<MemberStatus, 'polledAt' | 'nextPollAt'>; pollIntervalMs: number }) {
  const now = useNow();
  const { text, late } = checkedAge(member.polledAt, now, pollIntervalMs);
  const next =
    member.nextPollAt !== null && member.nextPollAt !== undefined && member.nextPollAt > now ? `; next check ${formatAbsolute(member.nextPollAt)}` : '';
  return (
    <time
      className={`member__checked${late ? ' member__checked--late' : ''}`}
      dateTime={new Date(member.polledAt).toISOString()}
      title={`Last checked ${formatAbsolute(member.polledAt)}${next}`}
    >
      {text}
    </time>
  );
}
