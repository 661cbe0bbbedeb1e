import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { useEnsembles } from '../../socket/useEnsembles';
import { formatAbsolute, formatClock, formatDuration } from '../../lib/time';
import { RelativeTime } from '../../ui/RelativeTime';
import { CopyButton } from '../../ui/CopyButton';
import { stateTone } from './describeSession';
import { ConnectionFacts } from './ConnectionFacts';

const STATE_WORDS: Record<ConsoleSessionSnapshot['state'], string> = {
  connecting: 'connecting',
  connected: 'connected',
  unconfirmed: 'unconfirmed',
  readOnly: 'read-only',
  disconnected: 'disconnected',
  expired: 'expired',
  authFailed: 'auth failed',
  closed: 'closed',
};

/** Every state change of the console's session, newest first, with the facts an operator asks for. */
export function SessionTimeline({ ensemble, snapshot, linkLive }: { ensemble: string; snapshot: ConsoleSessionSnapshot | undefined; linkLive: boolean }) {
  const { data: ensembles } = useEnsembles();
  const connectionString = ensembles?.find((e) => e.name === ensemble)?.connectionString;
  if (!snapshot) return <p className="muted session-timeline__empty">No session information yet: waiting for the server.</p>;
  const entries = [...snapshot.timeline].reverse();
  return (
    <div className="session-timeline">
      <header className="session-timeline__head">
        <h2>
          Console session <span className="muted">· {ensemble}</span>
        </h2>
        {!linkLive && <span className="status tone-stale">stale: no server link</span>}
      </header>
      <dl className="session-timeline__facts">
        <div>
          <dt>State</dt>
          <dd>
            <span className={`status tone-${stateTone(snapshot.state)}`}>{STATE_WORDS[snapshot.state]}</span>{' '}
            <span className="muted">
              since <RelativeTime at={snapshot.since} />
            </span>
          </dd>
        </div>
        <div>
          <dt>Last answer</dt>
          <dd>
            {snapshot.confirmedAt === null ? (
              '—'
            ) : (
              <>
                <time dateTime={new Date(snapshot.confirmedAt).toISOString()} title={formatAbsolute(snapshot.confirmedAt)}>
                  {formatClock(snapshot.confirmedAt)}
                </time>{' '}
                <span className="muted">
                  (<RelativeTime at={snapshot.confirmedAt} />)
                </span>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Session</dt>
          <dd className="mono">
            {snapshot.sessionId ?? '—'}
            {snapshot.sessionId && <CopyButton text={snapshot.sessionId} label="Copy session id" className="btn--inline" />}
            {snapshot.establishedAt !== null && (
              <span className="muted">
                {' '}
                established <RelativeTime at={snapshot.establishedAt} />
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Member</dt>
          <dd className="mono">{snapshot.member ?? '—'}</dd>
        </div>
        <div>
          <dt>Timeout</dt>
          <dd>{formatDuration(snapshot.timeoutMs)} negotiated</dd>
        </div>
        <div>
          <dt>Sessions opened</dt>
          <dd>{snapshot.sessionsOpened}</dd>
        </div>
        {connectionString && (
          <div>
            <dt>Connect string</dt>
            <dd className="mono session-timeline__wrap">{connectionString}</dd>
          </div>
        )}
      </dl>
      {snapshot.connection && <ConnectionFacts facts={snapshot.connection} />}
      <div className="session-timeline__scroll">
        <table className="session-timeline__table">
          <caption className="visually-hidden">State changes, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">State</th>
              <th scope="col">Session</th>
              <th scope="col">Member</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={`${e.at}-${i}`}>
                <td className="session-timeline__time">
                  <time className="mono" dateTime={new Date(e.at).toISOString()} title={formatAbsolute(e.at)}>
                    {formatClock(e.at)}
                  </time>{' '}
                  <span className="muted">
                    <RelativeTime at={e.at} />
                  </span>
                </td>
                <td>
                  <span className={`status tone-${stateTone(e.state)}`}>{STATE_WORDS[e.state]}</span>
                </td>
                <td className="mono">{e.sessionId ?? '—'}</td>
                <td className="mono">{e.member ?? '—'}</td>
                <td className="session-timeline__note">{e.note ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
