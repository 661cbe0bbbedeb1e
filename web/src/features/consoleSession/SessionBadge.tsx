/**
 * The console's ZooKeeper session for the current ensemble, in color and words; opens the timeline.
 * Its accessible name is stable ("Console session: connected") so tests and screen readers can find it.
 * Beside it, how the console connects and who ZooKeeper sees it as, when the ensemble is secured.
 */
import { useId, useRef, useState } from 'react';
import { useConnectionStatus } from '../../socket/hooks';
import { useSessionEntry } from '../../app/consoleSession/consoleSessionTopic';
import { useNow } from '../../lib/useNow';
import { describeSession } from './describeSession';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart } from '../../ui/LazyPart';
import { ConnectionChip } from './ConnectionChip';
import './session.css';

// The timeline's code arrives with the first click on the badge.
const SessionTimeline = lazyNamed(() => import('./SessionTimeline'), 'SessionTimeline');

export function SessionBadge({ ensemble }: { ensemble: string }) {
  const status = useConnectionStatus();
  const entry = useSessionEntry(ensemble);
  const now = useNow();
  const linkLive = status.phase === 'live' && entry?.epoch === status.epoch;
  const d = describeSession(entry?.snapshot, now, linkLive);
  const state = entry?.snapshot.state ?? 'unknown';
  const popoverId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popoverRef = useRef<HTMLDivElement>(null);
  const [opened, setOpened] = useState(false);

  // The popover lives in the top layer; place it under the badge each time it opens.
  const place = () => {
    const b = buttonRef.current?.getBoundingClientRect();
    const p = popoverRef.current;
    if (!b || !p) return;
    const width = Math.min(640, window.innerWidth - 16);
    p.style.width = `${width}px`;
    p.style.top = `${b.bottom + 6}px`;
    p.style.left = `${Math.max(8, Math.min(b.left, window.innerWidth - width - 8))}px`;
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className={`session-badge tone-${d.tone}`}
        aria-label={`Console session: ${state}${linkLive ? '' : ' (stale)'}`}
        title="Console session for this ensemble: click for its timeline"
        popoverTarget={popoverId}
        onClick={() => {
          setOpened(true);
          place();
        }}
      >
        <span className="status session-badge__headline">{d.headline}</span>
        {d.details.map((detail, i) => (
          <span key={i} className={`session-badge__detail mono ${i > 0 ? 'session-badge__detail--extra' : 'session-badge__detail--lead'}`}>
            {detail}
          </span>
        ))}
        {!linkLive && entry && <span className="session-badge__detail">stale</span>}
      </button>
      <ConnectionChip facts={entry?.snapshot.connection} stale={!linkLive} />
      <div ref={popoverRef} id={popoverId} popover="auto" className="session-popover" aria-label="Console session timeline">
        {opened && (
          <LazyPart>
            <SessionTimeline ensemble={ensemble} snapshot={entry?.snapshot} linkLive={linkLive} />
          </LazyPart>
        )}
      </div>
    </>
  );
}
