/**
 * Who is signed in, in the top bar: the name and a role badge ("admin", "viewer", "shared link ·
 * expires in 3 h"); a click opens the details and, for sessions that can end, Sign out.
 */
import { useId, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, errorText, noContent } from '../../lib/api';
import { useNow } from '../../lib/useNow';
import { formatAbsolute } from '../../lib/time';
import { SignOutIcon } from '../audit/icons';
import { canSignOut, identityLabel } from './identity';
import { setSignedOut, useMe } from './me';
import './userMenu.css';

export function UserMenu() {
  const { data: me } = useMe();
  const now = useNow();
  const popoverId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popoverRef = useRef<HTMLDivElement>(null);
  const queryClient = useQueryClient();
  const [signingOut, setSigningOut] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!me) return null;
  const label = identityLabel(me, now);

  const place = () => {
    const b = buttonRef.current?.getBoundingClientRect();
    const p = popoverRef.current;
    if (!b || !p) return;
    p.style.top = `${b.bottom + 6}px`;
    p.style.right = `${Math.max(8, window.innerWidth - b.right)}px`;
  };

  const signOut = async () => {
    setSigningOut(true);
    setError(null);
    try {
      await api('/api/logout', { method: 'POST', schema: noContent });
      popoverRef.current?.hidePopover();
      // The sign-in gate sends this page to /login, and back here after the next sign-in.
      setSignedOut(queryClient);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSigningOut(false);
    }
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className={`user-chip user-chip--${label.tone}`}
        popoverTarget={popoverId}
        onClick={place}
        aria-label={`Signed in: ${label.name}, ${label.badge}`}
        title={label.detail}
      >
        <span className="user-chip__name">{label.name}</span>
        <span className="user-chip__badge">{label.badge}</span>
      </button>
      <div ref={popoverRef} id={popoverId} popover="auto" className="user-popover" aria-label="Signed in as">
        <p className="user-popover__name">{label.name}</p>
        <p className="user-popover__detail">
          <span className={`user-chip__badge user-chip--${label.tone}`}>{label.badge}</span>
        </p>
        <p className="user-popover__detail muted">{label.detail}.</p>
        {me.shareLink && (
          <p className="user-popover__detail muted">
            Link ends <time title={formatAbsolute(me.shareLink.expiresAt)}>{formatAbsolute(me.shareLink.expiresAt).slice(0, 16)}</time>.
          </p>
        )}
        {error && (
          <p className="user-popover__detail" role="alert">
            <span className="status tone-lost">not signed out</span> {error}
          </p>
        )}
        {canSignOut(me) ? (
          <button type="button" className="btn btn--outline user-popover__action" disabled={signingOut} onClick={() => void signOut()}>
            <SignOutIcon />
            {signingOut ? 'Signing out…' : 'Sign out'}
          </button>
        ) : (
          <p className="user-popover__detail muted">
            {me.via === 'bearer' ? 'A bearer token has no session to sign out of: drop the header to stop using it.' : 'Nothing to sign out of.'}
          </p>
        )}
      </div>
    </>
  );
}
