/**
 * The quorum in one sentence, at the top: a status word and color, the server's sentence
 * ("3 of 3 voters serving; tolerates 1 failure"), and the few figures behind it. A live region:
 * screen readers hear it change, so nothing in it ticks (no "2 s ago" here).
 */
import { Link } from 'react-router-dom';
import type { Alert, MemberStatus, QuorumSummary } from '@keeper/shared';
import { toHexId } from '../../lib/zxid';
import { describeQuorum, quorumAlert } from './memberState';
import { plural } from '../../ui/format';
import { memberUrl } from '../../app/urls/ensembleUrls';

export function QuorumBanner({
  ensemble,
  quorum,
  alerts,
  members,
  stale,
}: {
  ensemble: string;
  quorum: QuorumSummary;
  alerts: readonly Alert[];
  members: readonly MemberStatus[];
  stale: boolean;
}) {
  const look = describeQuorum(quorum, alerts, stale, members);
  // At the edge or without quorum, the poller's alert says why and what to do: here, where the eye is.
  const alert = quorumAlert(alerts);
  const leader = members.find((m) => m.state === 'leader' || m.state === 'standalone');
  const zxid = leader?.metrics.zxid ? toHexId(leader.metrics.zxid) : null;
  return (
    <section className={`quorum tone-${look.tone}`} role="status" aria-label="Quorum">
      <div className="quorum__line">
        <span className="status quorum__word">{look.word}</span>
        <p className="quorum__sentence">{quorum.sentence}</p>
      </div>
      {alert ? (
        <p className="quorum__reason">
          {alert.why} <span className="alert__label">What to do</span> {alert.action}
        </p>
      ) : (
        look.reason && <p className="quorum__reason">{look.reason}</p>
      )}
      <dl className="quorum__facts">
        <div>
          <dt>quorum</dt>
          <dd>
            {quorum.quorumSize} of {plural(quorum.voters, 'voter')}
          </dd>
        </div>
        <div>
          <dt>tolerates</dt>
          <dd>{plural(quorum.tolerates, 'failure')}</dd>
        </div>
        <div>
          <dt>can lose now</dt>
          <dd className={quorum.hasQuorum && quorum.canLoseNow === 0 ? 'quorum__edge' : undefined}>{quorum.hasQuorum ? quorum.canLoseNow : '—'}</dd>
        </div>
        {quorum.observers > 0 && (
          <div>
            <dt>observers</dt>
            <dd>
              {quorum.observersServing} of {quorum.observers} serving
            </dd>
          </div>
        )}
        <div>
          <dt>{leader?.state === 'standalone' ? 'standalone' : 'leader'}</dt>
          <dd>
            {leader ? (
              <Link className="mono link" to={memberUrl(ensemble, leader.address)}>
                {leader.id !== null ? `${leader.id} · ` : ''}
                {leader.address}
              </Link>
            ) : (
              'none'
            )}
          </dd>
        </div>
        {leader?.metrics.epoch !== null && leader?.metrics.epoch !== undefined && (
          <div>
            <dt>epoch</dt>
            <dd className="mono" title={zxid ? `leader zxid ${zxid}` : undefined}>
              {leader.metrics.epoch}
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}
