/**
 * One member: its state word and color first, then what identifies it (address, id, zxid, epoch
 * and its whole build string), the figures an operator compares across members, and its recent history.
 * Its accessible name is the address, so tests and screen readers find "127.0.0.1:2192".
 * Selected (deep link /members/<address>) it spans the row, shows everything and larger charts.
 */
import { memo } from 'react';
import { Link } from 'react-router-dom';
import type { Alert, HistoryPoint, MemberStatus } from '@keeper/shared';
import { formatAbsolute } from '../../lib/time';
import { toHexId, zxidParts } from '../../lib/zxid';
import { useNow } from '../../lib/useNow';
import { CopyButton } from '../../ui/CopyButton';
import { RelativeTime } from '../../ui/RelativeTime';
import { Crown } from '../../ui/icons';
import { MemberCharts } from './MemberCharts';
import { MemberChecked } from './MemberChecked';
import { MemberFigures } from './MemberFigures';
import { describeMember, isServingState, outageText } from './memberState';
import { memberUrl, membersUrl } from '../../app/urls/ensembleUrls';

export const MemberCard = memo(function MemberCard({
  ensemble,
  member,
  alerts,
  history,
  historyTo,
  stale,
  selected,
  votingFollowers,
  pollIntervalMs,
  buildDiffers = false,
}: {
  ensemble: string;
  member: MemberStatus;
  alerts: readonly Alert[];
  history: readonly HistoryPoint[] | undefined;
  /** End of the chart window: the latest poll's time (server clock, like the points). */
  historyTo: number;
  stale: boolean;
  selected: boolean;
  /** Voters other than the leader, for "synced followers 1 of 2". */
  votingFollowers: number;
  /** The poller's cadence: a check older than a few of these is shown as late. */
  pollIntervalMs: number;
  /** Its build string is not the one most members run (a mixed-builds alert names it). */
  buildDiffers?: boolean;
}) {
  const look = describeMember(member, alerts, stale);
  const m = member.metrics;
  const leader = member.state === 'leader';
  const serving = isServingState(member.state);
  const zxid = m.zxid ? toHexId(m.zxid) : null;
  const parts = m.zxid ? zxidParts(m.zxid) : null;
  const observerByConfig = member.configuredRole === 'observer' && member.state !== 'observer';

  return (
    <article
      className={`member tone-${look.tone}${selected ? ' is-selected' : ''}${leader ? ' is-leader' : ''}${serving ? '' : ' is-out'}`}
      aria-label={member.address}
      aria-current={selected ? 'true' : undefined}
      id={`member-${member.address}`}
    >
      <header className="member__head">
        <span className="status member__state">{look.word}</span>
        {leader && <Crown size={14} className="member__crown" />}
        <Link
          to={selected ? membersUrl(ensemble) : memberUrl(ensemble, member.address)}
          className="member__address mono"
          title={selected ? 'Back to all members' : 'Open this member (a link you can share)'}
        >
          {member.address}
        </Link>
        {observerByConfig && <span className="badge">observer</span>}
        <span className="member__spacer" />
        <MemberChecked member={member} pollIntervalMs={pollIntervalMs} />
      </header>

      {(look.reason || !serving) && (
        // A serving member's note (words not whitelisted) is information, not a health colour.
        <p className={`member__reason${serving && look.tone === 'live' ? ' member__reason--note' : ''}`}>
          {!serving && <Outage member={member} />}
          {look.reason && <span className="member__detail">{look.reason}</span>}
        </p>
      )}

      <p className="member__ids">
        {member.id !== null && (
          <span>
            id <span className="mono">{member.id}</span>
          </span>
        )}
        <span>
          zxid{' '}
          <span className="mono member__zxid" title={parts ? `epoch ${parts.epoch}, counter ${parts.counter}` : undefined}>
            {zxid ?? '—'}
          </span>
        </span>
        <span>
          epoch <span className="mono">{m.epoch ?? '—'}</span>
        </span>
      </p>

      {m.version !== null && (
        // The whole string: two builds of one release differ only after "3.8.0".
        <p className={`member__build${buildDiffers ? ' member__build--differs' : ''}`}>
          <span>build</span> <span className="mono">{m.version}</span>
          {buildDiffers && <span className="status member__build-word">differs</span>}
        </p>
      )}

      <MemberFigures member={member} expanded={selected} votingFollowers={votingFollowers} />
      <MemberCharts points={history} to={historyTo} large={selected} />

      {selected && (
        <footer className="member__foot note">
          <span>
            polled <RelativeTime at={member.polledAt} />
            {member.source === 'admin' ? ' via the AdminServer' : member.source === '4lw' ? ' via four-letter words' : ': no answer'}
          </span>
          {member.nextPollAt !== null && member.nextPollAt !== undefined && member.nextPollAt > member.polledAt && (
            <span title={formatAbsolute(member.nextPollAt)}>
              next check <NextIn at={member.nextPollAt} />
            </span>
          )}
          <span className="member__copy">
            <CopyButton text={`${window.location.origin}${memberUrl(ensemble, member.address)}`} label="Copy link to this member" /> link
          </span>
        </footer>
      )}
    </article>
  );
});

function Outage({ member }: { member: MemberStatus }) {
  const now = useNow();
  const text = outageText(member, now);
  if (!text) return null;
  return (
    <strong className="member__outage" title={member.lastServingAt ? `last seen serving ${formatAbsolute(member.lastServingAt)}` : undefined}>
      {text}
    </strong>
  );
}

function NextIn({ at }: { at: number }) {
  const now = useNow();
  const s = Math.max(0, Math.ceil((at - now) / 1000));
  return <>{s === 0 ? 'now' : `in ${s} s`}</>;
}
