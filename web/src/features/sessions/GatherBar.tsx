/**
 * How old the sessions snapshot is ("gathered 12 s ago", the time on hover; marked when it is
 * older than the server's cadence, and "gathering…" while a read is bringing a fresh one),
 * "Gather now" (disabled while the server's rate limit says no, with when the next is allowed),
 * and what the gathering could not see (members whose cons or dump are not whitelisted, down).
 */
import type { SessionsAnswer } from '@keeper/shared';
import { formatAbsolute } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { RelativeTime } from '../../ui/RelativeTime';
import { errorText } from '../../lib/api';
import { Refresh } from '../../ui/icons';
import { allowedAt, DEFAULT_CADENCE_S, isOutdated } from '../../lib/gatherSchedule';

export interface GatherControl {
  gather: () => void;
  pending: boolean;
  error: unknown;
  /** Browser time until which the server refused (429), or null. */
  refusedUntil: number | null;
}

export function GatherBar({
  data,
  dataUpdatedAt,
  refreshError,
  control,
  reading,
}: {
  data: SessionsAnswer;
  /** Browser time the snapshot arrived; the server's window is counted from it. */
  dataUpdatedAt: number;
  refreshError: unknown;
  control: GatherControl;
  /** A read is under way (opening the view, coming back to the tab, the timer): it gathers anew when the data is a cadence old. */
  reading: boolean;
}) {
  const now = useNow();
  const allowed = allowedAt(dataUpdatedAt, data.gatherAllowedInSeconds ?? data.nextGatherInSeconds, control.refusedUntil, now);
  const old = isOutdated(data.gatheredAt, data.cadenceSeconds, now);
  const waitS = allowed === null ? 0 : Math.ceil((allowed - now) / 1000);
  const gatherError = control.error && allowed === null ? control.error : null;
  return (
    <div className="gather">
      <div className="gather__line">
        <span className="gather__when">
          {data.gatheredAt === null ? (
            <span className="muted">Not gathered yet</span>
          ) : (
            <>
              Gathered <RelativeTime at={data.gatheredAt} className={`gather__ago${old ? ' gather__ago--old' : ''}`} />
              {old && !reading && <span className="status tone-stale gather__old">older than the {data.cadenceSeconds ?? DEFAULT_CADENCE_S} s cadence</span>}
            </>
          )}
        </span>
        <button
          type="button"
          className="btn btn--outline gather__btn"
          onClick={control.gather}
          disabled={control.pending || allowed !== null}
          aria-busy={control.pending}
          title="Ask every member for its connections and sessions now (cons and dump are not free on a busy member, so the server allows one gathering per window)"
        >
          <Refresh size={14} />
          Gather now
        </button>
        {(control.pending || (reading && old)) && (
          <span className="gather__wait muted" role="status">
            gathering from every member…
          </span>
        )}
        {allowed !== null && !control.pending && (
          <span className="gather__wait muted" title={formatAbsolute(allowed)}>
            next gathering allowed in {waitS} s
          </span>
        )}
        {gatherError !== null && (
          <span className="error-note" role="alert">
            <span className="status tone-lost">failed</span> {errorText(gatherError)}
          </span>
        )}
        {refreshError !== null && refreshError !== undefined && (
          <span className="error-note" role="alert">
            <span className="status tone-stale">not refreshed</span> {errorText(refreshError)}; showing the last gathering
          </span>
        )}
      </div>
      {data.gaps.length > 0 && (
        <p className="gather__gaps tone-degraded">
          <span className="status">incomplete</span>
          {data.gaps.map((g) => (
            <span key={g.member} className="gather__gap">
              <span className="mono">{g.member}</span>: {g.reason}
            </span>
          ))}
        </p>
      )}
    </div>
  );
}
