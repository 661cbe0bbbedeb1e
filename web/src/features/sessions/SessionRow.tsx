/** One session: a dense row of cells; expanded (selected), its detail follows inside the row. */
import { memo, type Ref } from 'react';
import type { EnsembleSession } from '@keeper/shared';
import { toHexId } from '../../lib/zxid';
import { RelativeTime } from '../../ui/RelativeTime';
import { duration, ms, NONE } from '../../ui/format';
import { rateText } from './rates';
import { EXPLAINED_BY_BANNER, FLAG_LABEL } from './flags';
import { SessionDetail } from './SessionDetail';

export const SessionRow = memo(function SessionRow({
  ensemble,
  session,
  index,
  expanded,
  focusable,
  start,
  rowRef,
  onToggle,
  onFocusRow,
}: {
  ensemble: string;
  session: EnsembleSession;
  index: number;
  expanded: boolean;
  focusable: boolean;
  /** Offset from the virtual list's top, px. */
  start: number;
  rowRef: Ref<HTMLDivElement>;
  onToggle: (sessionId: string) => void;
  onFocusRow: (index: number) => void;
}) {
  const id = toHexId(session.sessionId);
  const disconnected = session.connected === false;
  const why = session.flags.filter((f) => !EXPLAINED_BY_BANNER.has(f.kind));
  return (
    <div
      ref={rowRef}
      role="row"
      data-index={index}
      aria-rowindex={index + 2}
      aria-expanded={expanded}
      tabIndex={focusable ? 0 : -1}
      className={`srow${expanded ? ' is-expanded' : ''}${session.isConsole ? ' is-console' : ''}${session.flags.length > 0 ? ' is-flagged' : ''}`}
      style={{ transform: `translateY(${start}px)` }}
      onClick={() => onToggle(session.sessionId)}
      onFocus={() => onFocusRow(index)}
    >
      <div role="cell" className="scell scell--id">
        <span className="mono srow__id" title={session.sessionId === id ? undefined : session.sessionId}>
          {id}
        </span>
        {session.isConsole && (
          <span className="badge badge--accent" title="Keeper’s own session to this ensemble (this console)">
            console
          </span>
        )}
      </div>
      <div role="cell" className="scell scell--client mono">
        {disconnected ? <span className="srow__none">no connection</span> : session.client || NONE}
      </div>
      <div role="cell" className="scell scell--member mono">
        {session.member || NONE}
      </div>
      <div role="cell" className="scell scell--num" data-label="timeout">
        {duration(session.timeoutMs)}
      </div>
      <div role="cell" className="scell scell--time" data-label="established">
        {session.establishedAt === null ? NONE : <RelativeTime at={session.establishedAt} />}
      </div>
      <div role="cell" className="scell scell--time" data-label="last response">
        {session.lastResponseAt === null ? NONE : <RelativeTime at={session.lastResponseAt} />}
      </div>
      <div
        role="cell"
        className="scell scell--num"
        data-label="req/s"
        title={
          session.sentPerSecond === null || session.sentPerSecond === undefined
            ? undefined
            : `${rateText(session.sentPerSecond)} answers and notifications per second sent to it`
        }
      >
        {rateText(session.requestsPerSecond ?? null)}
      </div>
      <div
        role="cell"
        className="scell scell--num"
        data-label="latency"
        title={`min/avg/max ${ms(session.latencyMin)} / ${ms(session.latencyAvg)} / ${ms(session.latencyMax)} ms`}
      >
        {session.latencyAvg === null ? NONE : `${ms(session.latencyAvg)} ms`}
      </div>
      <div role="cell" className={`scell scell--num${session.queued !== null && session.queued > 0 ? ' scell--warn' : ''}`} data-label="queued">
        {session.queued ?? NONE}
      </div>
      <div role="cell" className="scell scell--num" data-label="ephemerals">
        {session.ephemeralCount}
      </div>
      <div role="cell" className="scell scell--flags tone-degraded">
        {session.flags.map((f) => (
          <span key={f.kind} className="badge" title={f.message}>
            {FLAG_LABEL[f.kind]}
          </span>
        ))}
      </div>
      {/* What each flag means, under the row: the problem rows explain themselves without a click. */}
      {why.length > 0 && !expanded && (
        <div role="cell" className="scell scell--why">
          {why.map((f) => (
            <span key={f.kind} className="sflag__msg" title={f.message}>
              {f.message}
            </span>
          ))}
        </div>
      )}
      {expanded && <SessionDetail ensemble={ensemble} session={session} />}
    </div>
  );
});
