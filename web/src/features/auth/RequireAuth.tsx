/**
 * The gate in front of every console page: asks GET /api/me once, sends a stranger to /login (and
 * back afterwards), and only then opens the socket, so nothing connects before there is someone to
 * connect as. Inside, a socket closed with 4003 (share link revoked or expired, signed out
 * elsewhere, session expired) turns the page into a clear message instead of a reconnect loop.
 */
import { useEffect, type ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import type { MeAnswer } from '@keeper/shared';
import { onUnauthenticated, errorText } from '../../lib/api';
import { SocketProvider } from '../../socket/SocketProvider';
import { useConnectionStatus } from '../../socket/hooks';
import { AccessEnded } from './AccessEnded';
import { fetchMe, meQueryKey, setSignedOut, useMe } from '../../app/me';
import { loginUrl } from './identity';
import { Callout } from '../../ui/Callout';
import './auth.css';

export function RequireAuth() {
  const { data: me, error, refetch, isFetching } = useMe();
  const location = useLocation();
  const queryClient = useQueryClient();

  // Any 401 from the API: the sign-in session is gone; forget what it saw and ask who is there.
  useEffect(() => onUnauthenticated(() => setSignedOut(queryClient)), [queryClient]);

  if (me === null) return <Navigate to={loginUrl(location.pathname + location.search)} replace />;
  if (me === undefined) {
    return (
      <div className="auth-page">
        <div className="auth-card" aria-busy={error ? undefined : 'true'}>
          <Brand />
          {error ? (
            <>
              <Callout tone="lost" role="alert">
                <strong>Cannot reach the Keeper server</strong>
                <p>{errorText(error)}</p>
              </Callout>
              <div className="form-actions">
                <button type="button" className="btn btn--primary" disabled={isFetching} onClick={() => void refetch()}>
                  Try again
                </button>
              </div>
            </>
          ) : (
            <p className="muted">Checking who you are…</p>
          )}
        </div>
      </div>
    );
  }
  // A new identity gets a new socket (and its own subscriptions).
  return (
    <SocketProvider key={`${me.via}:${me.name}`}>
      <AccessGuard me={me}>
        <Outlet />
      </AccessGuard>
    </SocketProvider>
  );
}

function AccessGuard({ me, children }: { me: MeAnswer; children: ReactNode }) {
  const status = useConnectionStatus();
  const queryClient = useQueryClient();
  // The socket keeps failing to connect: a refused upgrade (403) looks like any other drop, so ask
  // the API whether we are still signed in (a server restart signs browsers out).
  const attempt = status.phase === 'waiting' ? status.attempt : 0;
  useEffect(() => {
    if (attempt < 2) return;
    queryClient.fetchQuery({ queryKey: meQueryKey, queryFn: fetchMe, staleTime: 0 }).catch(() => {
      // The server is unreachable: the connection banner says so; the identity is unchanged.
    });
  }, [attempt, queryClient]);

  if (status.phase === 'ended') return <AccessEnded me={me} reason={status.fatalReason} />;
  return <>{children}</>;
}

export function Brand() {
  return (
    <div className="auth-brand">
      <img src="/favicon.svg" alt="" width={28} height={28} />
      <span>Keeper</span>
    </div>
  );
}
