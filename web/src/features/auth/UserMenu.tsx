/**
 * Who is signed in, in the top bar: the name and a role badge ("admin", "writer", "viewer",
 * "shared link · expires in 3 h"). A click opens "who am I" (WhoAmI.tsx, loaded on that first
 * click: the first page does not need it).
 */
import { useId, useRef, useState } from 'react';
import { useNow } from '../../lib/useNow';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart } from '../../ui/LazyPart';
import { identityLabel } from './identity';
import { useMe } from '../../app/me';
import './userMenu.css';

const WhoAmI = lazyNamed(() => import('./WhoAmI'), 'WhoAmI');

export function UserMenu() {
  const { data: me } = useMe();
  const now = useNow();
  const popoverId = useId();
  const titleId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popoverRef = useRef<HTMLDivElement>(null);
  const [opened, setOpened] = useState(false);
  if (!me) return null;
  const label = identityLabel(me, now);

  const place = () => {
    const b = buttonRef.current?.getBoundingClientRect();
    const p = popoverRef.current;
    if (!b || !p) return;
    p.style.top = `${b.bottom + 6}px`;
    p.style.right = `${Math.max(8, window.innerWidth - b.right)}px`;
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className={`user-chip user-chip--${label.tone}`}
        popoverTarget={popoverId}
        onClick={() => {
          setOpened(true);
          place();
        }}
        aria-label={`Signed in: ${label.name}, ${label.badge}`}
        title={label.detail}
      >
        <span className="user-chip__name">{label.name}</span>
        <span className="user-chip__badge">{label.badge}</span>
      </button>
      <div ref={popoverRef} id={popoverId} popover="auto" className="user-popover" role="dialog" aria-labelledby={titleId}>
        {opened && (
          <LazyPart>
            <WhoAmI titleId={titleId} me={me} label={label} now={now} onSignedOut={() => popoverRef.current?.hidePopover()} />
          </LazyPart>
        )}
      </div>
    </>
  );
}
