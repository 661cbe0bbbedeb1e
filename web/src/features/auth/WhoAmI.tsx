/**
 * "Who am I", the body of the user menu's popover: how this person signed in and until when,
 * their groups, and their effective rights as the server applies them (what they read, where
 * they may change znodes, what stays out of reach), and Sign out for sessions that can end.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ROUTES, type MeAnswer } from '@keeper/shared';
import { call, errorText } from '../../lib/api';
import { formatAbsolute, formatDuration } from '../../lib/time';
import { SignOutIcon } from './icons';
import { canSignOut, rightsWords, type IdentityLabel } from './identity';
import { setSignedOut } from '../../app/me';

/** `titleId` names the popover (its dialog role is on UserMenu's element): the person's name. */
export function WhoAmI({
  titleId,
  me,
  label,
  now,
  onSignedOut,
}: {
  titleId: string;
  me: MeAnswer;
  label: IdentityLabel;
  now: number;
  onSignedOut: () => void;
}) {
  const queryClient = useQueryClient();
  const [signingOut, setSigningOut] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rights = rightsWords(me);

  const signOut = async () => {
    setSigningOut(true);
    setError(null);
    try {
      await call(ROUTES.logout, {});
      onSignedOut();
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
      <p className="user-popover__eyebrow muted">Who am I</p>
      <div className="user-popover__head">
        <span id={titleId} className="user-popover__name" title={label.name}>
          {label.name}
        </span>
        <span className={`user-chip__badge user-chip--${label.tone}`}>{label.badge}</span>
      </div>
      <p className="user-popover__detail muted">
        {me.signedInWith ? `Signed in with ${me.signedInWith}` : label.detail}
        {me.expiresAt !== undefined && (
          <>
            {' '}
            · until <time title={formatAbsolute(me.expiresAt)}>{formatAbsolute(me.expiresAt).slice(11, 16)}</time> ({formatDuration(me.expiresAt - now)} left)
          </>
        )}
        {me.shareLink && (
          <>
            {' '}
            · link ends <time title={formatAbsolute(me.shareLink.expiresAt)}>{formatAbsolute(me.shareLink.expiresAt).slice(0, 16)}</time>
          </>
        )}
      </p>
      <section className="whoami" aria-label="Effective rights">
        <h2 className="whoami__title">What you may do</h2>
        <dl className="whoami__rights">
          <dt>Read</dt>
          <dd>{rights.read}</dd>
          <dt>Change</dt>
          <dd>
            {rights.change.length === 0 ? (
              <span className="muted">nothing</span>
            ) : (
              <ul className="whoami__scopes">
                {rights.change.map((scope) => (
                  <li key={scope.ensemble ?? '*'}>
                    {scope.ensemble === null ? (
                      'everything: znodes, ACLs, locks, upgrades, share links'
                    ) : (
                      <>
                        <span className="whoami__ensemble">{scope.ensemble}</span>{' '}
                        {scope.paths.map((p) => (
                          <span key={p} className="mono whoami__path">
                            {p}
                          </span>
                        ))}
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </dd>
          {rights.not && (
            <>
              <dt>Not</dt>
              <dd className="muted">{rights.not}</dd>
            </>
          )}
          {me.groups && (
            <>
              <dt>Groups</dt>
              <dd>
                {me.groups.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  me.groups.map((g) => (
                    <span
                      key={g}
                      className={`whoami__group${me.rights?.grantedBy.includes(g) ? ' whoami__group--granted' : ''}`}
                      title={me.rights?.grantedBy.includes(g) ? 'gives these rights' : 'grants nothing here'}
                    >
                      {g}
                    </span>
                  ))
                )}
              </dd>
            </>
          )}
        </dl>
      </section>
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
    </>
  );
}
