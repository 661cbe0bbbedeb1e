/**
 * /login: a user name and password (config `auth.users`) or a token (KEEPER_ADMIN_TOKEN /
 * KEEPER_VIEWER_TOKEN). Errors in the operator's terms, the rate limit included; afterwards, back
 * to the page that was asked for.
 */
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { meResponseSchema, type LoginBody } from '@keeper/shared';
import { api, hasStatus } from '../../lib/api';
import { ThemeToggle } from '../shell/ThemeToggle';
import { Field } from '../../ui/Field';
import { Brand } from './RequireAuth';
import { safeNextPath, signInErrorMessage, type SignInMethod } from './identity';
import { setSignedIn, useMe } from './me';
import '../../ui/forms.css';
import './auth.css';

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNextPath(params.get('next'));
  const { data: me } = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [method, setMethod] = useState<SignInMethod>('password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');

  const login = useMutation({
    mutationFn: (body: LoginBody) => api('/api/login', { method: 'POST', body, schema: meResponseSchema }),
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
    setMethod(m);
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
        <p className="auth-text muted">to the ZooKeeper console{next !== '/' ? <> — then back to <span className="mono">{next}</span></> : null}</p>
        <div className="segmented auth-methods" role="group" aria-label="Sign in with">
          <button type="button" className="segmented__btn" aria-pressed={method === 'password'} onClick={() => choose('password')}>
            Password
          </button>
          <button type="button" className="segmented__btn" aria-pressed={method === 'token'} onClick={() => choose('token')}>
            Token
          </button>
        </div>
        <form className="auth-form" onSubmit={submit} noValidate>
          {method === 'password' ? (
            <>
              <Field label="User name">
                {(p) => <input {...p} className="input" name="username" autoComplete="username" autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />}
              </Field>
              <Field label="Password">
                {(p) => <input {...p} className="input" type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
              </Field>
            </>
          ) : (
            <Field label="Token" hint="KEEPER_ADMIN_TOKEN or KEEPER_VIEWER_TOKEN, or the token in the URL Keeper printed at start-up.">
              {(p) => <input {...p} className="input mono" type="password" name="token" autoComplete="off" autoFocus spellCheck={false} value={token} onChange={(e) => setToken(e.target.value)} />}
            </Field>
          )}
          {login.error && (
            <div className={`callout ${hasStatus(login.error, 429) ? 'tone-degraded' : 'tone-lost'}`} role="alert">
              <strong>{signInErrorMessage(login.error, method)}</strong>
            </div>
          )}
          <button type="submit" className="btn btn--primary auth-submit" disabled={!ready || login.isPending}>
            {login.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p className="auth-foot muted">
          Read-only link? Open it as it was sent to you: it signs you in by itself.
        </p>
      </main>
    </div>
  );
}
