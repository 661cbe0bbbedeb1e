/**
 * Starts the real OpenID Connect provider of providerProcess.ts for a test (a child process on
 * loopback) and drives it: its clock, an ID token swapped on the way, and a headless browser that
 * signs a person in through its real login and consent pages (for tests that need to tamper with
 * the answer before Keeper sees it; the e2e specs use Chromium).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..', '..');

export interface FixtureClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

export interface OidcProviderOptions {
  /** 0: any free port. */
  port?: number;
  clients: FixtureClient[];
  /** Account id (what one types at the provider's login) -> its claims, e.g. {preferred_username, email, groups}. */
  accounts: Record<string, Record<string, unknown>>;
}

export interface RunningOidcProvider {
  issuer: string;
  /** The provider's clock: ahead (+) or behind (-) by this much. */
  skewClock(ms: number): Promise<void>;
  /** The next token response carries this ID token instead of its own. */
  swapNextIdToken(idToken: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningOidcProvider> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'providerProcess.ts')], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, KEEPER_OIDC_FIXTURE: JSON.stringify({ port: options.port ?? 0, clients: options.clients, accounts: options.accounts }) },
  });
  let out = '';
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the OIDC provider did not start within 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += String(d);
      const ready = /OIDC provider ready (\S+)/.exec(out)?.[1];
      if (ready) {
        clearTimeout(timer);
        resolve(ready);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the OIDC provider exited (${code}) before it was ready:\n${out}`));
    });
  });
  const control = async (what: string, body: unknown) => {
    const res = await fetch(`${issuer}/__fixture/${what}`, { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`fixture ${what}: ${res.status}`);
  };
  return {
    issuer,
    skewClock: (ms) => control('clock', { skewMs: ms }),
    swapNextIdToken: (idToken) => control('swap-id-token', { idToken }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Cookies by name, as a browser keeps them for one site (enough for the provider and Keeper on loopback). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/** One request without following redirects, cookies from and into the jar. */
export async function visit(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header();
  if (cookie) headers.set('cookie', cookie);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.take(res);
  return res;
}

/**
 * Signs `login` in at the provider through its real pages, from an authorization URL, and returns
 * where the provider sends the browser back (the callback with code, state and iss), unfollowed,
 * so a test may deliver it, tamper with it, or deliver it twice. Consent is given when asked.
 */
export async function consentAtProvider(authorizationUrl: string, login: string, providerJar = new CookieJar()): Promise<string> {
  let url = authorizationUrl;
  for (let step = 0; step < 12; step++) {
    const res = await visit(providerJar, url);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).href;
      // Back to the client: done.
      if (!next.startsWith(new URL(authorizationUrl).origin)) return next;
      url = next;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`unexpected page at the provider (${res.status}): ${html.slice(0, 400)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any' } : {}) });
    const submitted = await visit(providerJar, new URL(action.replace(/&amp;/g, '&'), url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const back = submitted.headers.get('location');
    if (!back) throw new Error(`the provider did not move on after ${prompt} (${submitted.status}): ${(await submitted.text()).slice(0, 400)}`);
    url = new URL(back, url).href;
  }
  throw new Error('the provider never sent the browser back');
}
