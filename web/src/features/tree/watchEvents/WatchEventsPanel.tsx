/**
 * Live ZooKeeper watch events for what this browser is subscribed to, newest first. Pausing
 * freezes the list (so a row does not move under the cursor) and counts what is waiting.
 */
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { WATCH_EVENT_TYPES, type WatchEventType } from '@keeper/shared';
import { watchEventStore } from './watchEventStore';
import { formatCount } from '../../../lib/bytes';
import { RelativeTime } from '../../../ui/RelativeTime';
import { ChevronDown, ChevronRight, Pause, Play } from '../../../ui/icons';
import { znodeUrl } from '../../../app/urls/treeUrls';
import { Escaped } from '../ZnodeName';
import { escapeHiddenChars } from '../../../lib/invisibleChars';
import { AsOf } from '../../../app/freshness/AsOf';
import { useFreshness } from '../../../app/freshness/useFreshness';
import { useWatchEventLog } from './useWatchEvents';
import { visibleWatchEvents, WATCH_EVENT_LIMIT } from './watchEventLog';
import './watchEvents.css';

const TYPE_LABEL: Record<WatchEventType, string> = {
  created: 'created',
  deleted: 'deleted',
  dataChanged: 'data',
  childrenChanged: 'children',
};

export function WatchEventsPanel({ ensemble, open, onToggle }: { ensemble: string; open: boolean; onToggle: () => void }) {
  const log = useWatchEventLog();
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [types, setTypes] = useState<ReadonlySet<WatchEventType>>(new Set());
  const [pausedAt, setPausedAt] = useState<number | null>(null);

  const filter = useMemo(() => ({ ensemble, text, types }), [ensemble, text, types]);
  const { shown, waiting } = useMemo(() => visibleWatchEvents(log, filter, pausedAt), [log, filter, pausedAt]);
  const newest = shown[0];
  // While not live, changes happen unseen: say so rather than show a quiet list as if nothing moved.
  const freshness = useFreshness(ensemble);

  const toggleType = (t: WatchEventType) =>
    setTypes((prev) => {
      const next = new Set(prev);
      if (next.has(t)) next.delete(t);
      else next.add(t);
      return next;
    });

  return (
    <section className={`watch-events${open ? '' : ' is-closed'}`} aria-label="Watch events">
      <header className="watch-events__head">
        <button type="button" className="btn watch-events__toggle" aria-expanded={open} onClick={onToggle} title="Show or hide (w)">
          {open ? <ChevronDown size={14} /> : <ChevronRight size={14} />}
          <span className="section-title">Watch events</span>
        </button>
        {!open && newest && (
          <span className="watch-events__peek muted">
            <span className={`evt evt--${newest.event}`}>{TYPE_LABEL[newest.event]}</span>
            <span className="mono">
              <Escaped text={newest.path} />
            </span>
            <RelativeTime at={newest.at} />
          </span>
        )}
        {open && (
          <>
            <button
              type="button"
              className="btn btn--outline"
              aria-pressed={pausedAt !== null}
              onClick={() => setPausedAt((p) => (p === null ? watchEventStore.lastSeq() : null))}
            >
              {pausedAt === null ? <Pause size={14} /> : <Play size={14} />}
              {pausedAt === null ? 'Pause' : 'Resume'}
            </button>
            {pausedAt !== null && (
              <span className="watch-events__waiting" role="status">
                paused · {formatCount(waiting)} new
              </span>
            )}
            <div className="watch-events__types" role="group" aria-label="Event types">
              {WATCH_EVENT_TYPES.map((t) => (
                <button key={t} type="button" className={`chip evt--${t}`} aria-pressed={types.has(t)} onClick={() => toggleType(t)}>
                  {TYPE_LABEL[t]}
                </button>
              ))}
            </div>
            <input
              className="input mono watch-events__filter"
              type="search"
              placeholder="Filter paths"
              aria-label="Filter watch events by path"
              value={text}
              onChange={(e) => setText(e.target.value)}
              spellCheck="false"
            />
          </>
        )}
        {!freshness.live && <AsOf freshness={freshness} />}
        <span className="watch-events__count muted" title={`The newest ${WATCH_EVENT_LIMIT} events are kept`}>
          {formatCount(shown.length)} {shown.length === 1 ? 'event' : 'events'}
        </span>
      </header>
      {open && (
        <div className="watch-events__scroll">
          {shown.length === 0 ? (
            <p className="watch-events__empty muted">
              {log.length === 0
                ? 'No events yet. Changes to the znodes open in this tab (selected and expanded) appear here as they happen.'
                : 'No event matches the filter.'}
            </p>
          ) : (
            <ol className="watch-events__list">
              {shown.map((e) => (
                <li key={e.seq} className="watch-events__row">
                  <span className={`evt evt--${e.event}`}>{TYPE_LABEL[e.event]}</span>
                  <button
                    type="button"
                    className="watch-events__path mono"
                    onClick={() => navigate(znodeUrl(e.ensemble, e.path))}
                    title={`Open ${escapeHiddenChars(e.path)}`}
                  >
                    <Escaped text={e.path} />
                  </button>
                  <RelativeTime at={e.at} className="watch-events__time muted" />
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </section>
  );
}
