import { useConnectionStatus } from '../../socket/hooks';
import { useSocket } from '../../socket/socketContext';
import { formatAbsolute, formatClock, formatDuration } from '../../lib/time';
import { useNow } from '../../lib/useNow';

/** Says, above everything, that the link to the Keeper server is down or not answering, as of when, and what happens next. */
export function ConnectionBanner() {
  const status = useConnectionStatus();
  const { client } = useSocket();
  const now = useNow();
  if (status.phase === 'live' || status.phase === 'stopped') return null;
  if (status.phase === 'fatal') {
    return (
      <div className="banner tone-lost" role="alert">
        <span className="status">out of date</span>
        <span>{status.fatalReason}</span>
        <button type="button" className="btn btn--outline" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
  if (status.phase === 'unanswered') {
    // The socket is open but nothing comes back: a frozen or overloaded server. No reconnect yet
    // (its first answer makes everything live again); the time is that of its last message.
    return (
      <div className="banner tone-degraded" role="status" data-as-of={status.lostAt ?? undefined}>
        <span className="status">not answering</span>
        <span>
          Keeper is not answering
          {status.lostAt !== null && (
            <>
              ; as of <time title={formatAbsolute(status.lostAt)}>{formatClock(status.lostAt)}</time> ({formatDuration(now - status.lostAt)} ago)
            </>
          )}
          . What you see may be out of date; waiting for it to answer.
        </span>
      </div>
    );
  }
  // The first connect usually takes milliseconds: say nothing unless it drags on.
  const downFor = now - (status.downSince ?? now);
  if (status.lostAt === null && downFor < 1500) return null;
  const retryIn = status.retryAt === null ? null : Math.max(0, status.retryAt - now);
  return (
    <div className="banner tone-degraded" role="status">
      <span className="status">no server link</span>
      <span>
        {status.lostAt !== null ? (
          <>
            Lost the Keeper server at <time title={formatAbsolute(status.lostAt)}>{formatClock(status.lostAt)}</time> ({formatDuration(now - status.lostAt)}{' '}
            ago); what you see is as of then.
          </>
        ) : (
          <>Cannot reach the Keeper server.</>
        )}{' '}
        {status.phase === 'waiting' && retryIn !== null ? `Retrying in ${formatDuration(Math.ceil(retryIn / 1000) * 1000)}.` : 'Connecting…'}
        {status.lastError ? <span className="muted"> ({status.lastError})</span> : null}
      </span>
      {status.phase === 'waiting' && (
        <button type="button" className="btn btn--outline" onClick={() => client.reconnectNow()}>
          Retry now
        </button>
      )}
    </div>
  );
}
