/**
 * The ensemble's event timeline, newest first: leaders lost and elected with their epochs,
 * members down and back, alerts raised and cleared, upgrade steps. Each time is when Keeper's
 * poller OBSERVED the change (said above the list), in the reader's time zone; the list shows the
 * latest few and opens to everything kept (the last 24 h).
 */
import { useState } from 'react';
import { EVENT_TIMES_OBSERVED, type EnsembleEvent } from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../lib/time';
import type { Tone } from '../../ui/tone';
import { EVENT_WORD } from './ensembleEvents';

const FIRST_SHOWN = 10;

function toneOf(e: EnsembleEvent): Tone {
  if (e.kind === 'alert-cleared' || e.kind === 'member-up' || e.kind === 'leader-elected') return 'live';
  if (e.severity === 'critical') return 'lost';
  if (e.severity === 'warning') return e.kind === 'member-down' || e.kind === 'leader-lost' ? 'lost' : 'degraded';
  return 'stale';
}

/** "07:31:02", with the date when it is not today. */
function when(at: number, today: string): string {
  const d = new Date(at);
  const day = d.toDateString();
  return day === today ? formatClock(at) : `${d.getMonth() + 1}/${d.getDate()} ${formatClock(at)}`;
}

export function EventTimeline({ events, stale }: { events: readonly EnsembleEvent[] | undefined; stale: boolean }) {
  const [all, setAll] = useState(false);
  const newestFirst = [...(events ?? [])].reverse();
  const shown = all ? newestFirst : newestFirst.slice(0, FIRST_SHOWN);
  const today = new Date().toDateString();
  return (
    <section className="events" aria-label="Ensemble events">
      <header className="events__head">
        <h2 className="events__title">Events</h2>
        <p className="events__note note">{EVENT_TIMES_OBSERVED}</p>
      </header>
      {events === undefined ? (
        <p className="note">Reading the timeline…</p>
      ) : events.length === 0 ? (
        <p className="note">Nothing observed yet.</p>
      ) : (
        <ol className="events__list">
          {shown.map((e) => (
            <li key={e.seq} className={`event tone-${stale ? 'stale' : toneOf(e)}`}>
              <time className="event__time mono" dateTime={new Date(e.at).toISOString()} title={`observed ${formatAbsolute(e.at)}`}>
                {when(e.at, today)}
              </time>
              <span className="status event__kind">{EVENT_WORD[e.kind]}</span>
              <span className="event__text">{e.text}</span>
            </li>
          ))}
        </ol>
      )}
      {newestFirst.length > FIRST_SHOWN && (
        <button type="button" className="linklike events__more" onClick={() => setAll((a) => !a)} aria-expanded={all}>
          {all ? 'show the latest only' : `show all ${newestFirst.length} (last 24 h)`}
        </button>
      )}
    </section>
  );
}
