/**
 * /login: "Sign in with <provider>" (single sign-on, config `auth.oidc`), a user name and password
 * (config `auth.users`) or a token (KEEPER_ADMIN_TOKEN / KEEPER_VIEWER_TOKEN). Only the ways the
 * server has configured are offered (GET /api/sign-in-methods): no Password tab without users, it
 * opens on the token when only tokens exist, and with single sign-on alone there is just its
 * button. Errors in the operator's terms, the rate limit included; afterwards, back to the page
 * that was asked for.
 */
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ROUTES, type LoginBody } from '@keeper/shared';
import { call, hasStatus } from '../../lib/api';
import { ThemeToggle } from '../../ui/ThemeToggle';
import { Field } from '../../ui/Field';
import { Brand } from './RequireAuth';
import { endedSignInWords, safeNextPath, signInErrorMessage, type SignInMethod } from './identity';
import { setSignedIn, useMe } from '../../app/me';
import { Callout } from '../../ui/Callout';
import { useNow } from '../../lib/useNow';
import '../../ui/forms.css';
import './auth.css';

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNextPath(params.get('next'));
  const { data: me } = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Unknown (older server, or it failed): offer both, password first as before. While it is being
  // asked, nothing is offered: a Password tab shown first and then taken away offered what the
  // server may not have (and moved the form under a hand or a test about to click it).
  const { data: methods, isPending: methodsPending } = useQuery({
    queryKey: ['sign-in-methods'],
    queryFn: () => call(ROUTES.signInMethods, {}),
    staleTime: Infinity,
    retry: 1,
  });
  const offered: SignInMethod[] = methods ? (['password', 'token'] as const).filter((m) => methods[m]) : ['password', 'token'];
  const sso = methods?.oidc;
  const [chosen, setChosen] = useState<SignInMethod | null>(null);
  const method: SignInMethod = chosen !== null && offered.includes(chosen) ? chosen : (offered[0] ?? 'token');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');

  const login = useMutation({
    mutationFn: (body: LoginBody) => call(ROUTES.login, { body }),
    onSuccess: (signedIn) => {
      setSignedIn(queryClient, signedIn);
      navigate(next, { replace: true });
    },
  });

  // Already signed in (a bookmark of /login, or the open development mode): go on.
  if (me) return <Navigate to={next} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate(method === 'password' ? { username: username.trim(), password } : { token: token.trim() });
  };
  const ready = method === 'password' ? username.trim() !== '' && password !== '' : token.trim() !== '';
  const choose = (m: SignInMethod) => {
    setChosen(m);
    login.reset();
  };

  return (
    <div className="auth-page">
      <div className="auth-page__theme">
        <ThemeToggle />
      </div>
      <main className="auth-card">
        <Brand />
        <h1 className="auth-title">Sign in</h1>
        <p className="auth-text muted">
          to the ZooKeeper console
          {next !== '/' ? (
            <>
              {' '}
              — then back to{' '}
              <span className="mono auth-next" title={next}>
                {next}
              </span>
            </>
          ) : null}
        </p>
        {methods?.ended && <EndedNote ended={methods.ended} />}
        {methodsPending && (
          <p className="auth-text muted" role="status">
            Asking Keeper how to sign in…
          </p>
        )}
        {!methodsPending && sso && (
          <>
            {/* A plain navigation: the server sends the browser on to the provider and back. */}
            <a className="btn btn--primary auth-submit auth-sso" href={`${sso.url}?next=${encodeURIComponent(next)}`}>
              Sign in with {sso.name}
            </a>
            {offered.length > 0 && (
              <p className="auth-or muted" role="separator">
                <span>or with {offered.map((m) => (m === 'password' ? 'a password' : 'a token')).join(' or ')}</span>
              </p>
            )}
          </>
        )}
        {!methodsPending && offered.length > 1 && (
          <div className="segmented auth-methods" role="group" aria-label="Sign in with">
            {offered.map((m) => (
              <button key={m} type="button" className="segmented__btn" aria-pressed={method === m} onClick={() => choose(m)}>
                {m === 'password' ? 'Password' : 'Token'}
              </button>
            ))}
          </div>
        )}
        {!methodsPending && (offered.length > 0 || !sso) && (
          <form className="auth-form" onSubmit={submit} noValidate>
            {method === 'password' ? (
              <>
                <Field label="User name">
                  {(p) => (
                    <input
                      {...p}
                      className="input"
                      name="username"
                      autoComplete="username"
                      autoFocus
                      value={username}
                      onChange={(e) => setUsername(e.target.value)}
                    />
                  )}
                </Field>
                <Field label="Password">
                  {(p) => (
                    <input
                      {...p}
                      className="input"
                      type="password"
                      name="password"
                      autoComplete="current-password"
                      value={password}
                      onChange={(e) => setPassword(e.target.value)}
                    />
                  )}
                </Field>
              </>
            ) : (
              <Field label="Token" hint="KEEPER_ADMIN_TOKEN or KEEPER_VIEWER_TOKEN, or the token in the URL Keeper printed at start-up.">
                {(p) => (
                  <input
                    {...p}
                    className="input mono"
                    type="password"
                    name="token"
                    autoComplete="off"
                    autoFocus
                    spellCheck="false"
                    value={token}
                    onChange={(e) => setToken(e.target.value)}
                  />
                )}
              </Field>
            )}
            {login.error && (
              <Callout tone={hasStatus(login.error, 429) ? 'degraded' : 'lost'} role="alert">
                <strong>{signInErrorMessage(login.error, method)}</strong>
              </Callout>
            )}
            <button type="submit" className={`btn ${sso ? 'btn--outline' : 'btn--primary'} auth-submit`} disabled={!ready || login.isPending}>
              {login.isPending ? 'Signing in…' : 'Sign in'}
            </button>
          </form>
        )}
        <p className="auth-foot muted">Read-only link? Open it as it was sent to you: it signs you in by itself.</p>
      </main>
    </div>
  );
}

/** Why this browser's previous sign-in ended, as the server remembers it. */
function EndedNote({ ended }: { ended: { reason: string; at: number } }) {
  const words = endedSignInWords(ended, useNow());
  return (
    <Callout tone="degraded" role="status">
      <strong>{words.title}</strong>
      <p>
        {words.text} <span className="muted">({words.when})</span>
      </p>
    </Callout>
  );
}
