/**
 * Shown instead of the console when the server ended this browser's access (socket close code
 * 4003): a revoked or expired share link, a sign-out in another tab, an expired session. Says
 * which, and what to do; never retries on its own, because the server would only refuse.
 */
import { useLocation, useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import type { MeAnswer } from '@keeper/shared';
import { Brand } from './RequireAuth';
import { accessEndedWords, loginUrl } from './identity';
import { setSignedOut } from '../../app/me';

export function AccessEnded({ me, reason }: { me: MeAnswer; reason: string | null }) {
  const words = accessEndedWords(me, reason);
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <div className="auth-page">
      <main className="auth-card" role="alert" aria-labelledby="access-ended-title">
        <Brand />
        <h1 id="access-ended-title" className="auth-title">
          {words.title}
        </h1>
        <p className="auth-text">{words.text}</p>
        {reason && (
          <p className="auth-text muted">
            Server’s reason: <span className="mono">{reason}</span>
          </p>
        )}
        {words.canSignIn && (
          <div className="form-actions">
            <button
              type="button"
              className="btn btn--primary"
              onClick={() => {
                const target = loginUrl(location.pathname + location.search);
                setSignedOut(queryClient);
                navigate(target, { replace: true });
              }}
            >
              Sign in again
            </button>
          </div>
        )}
      </main>
    </div>
  );
}
