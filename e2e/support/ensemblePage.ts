/**
 * The ensemble, sessions and watches views as a page object (role-based locators only, so the
 * markup can move), plus what their specs need around them: signing in, and kazoo clients that
 * hold sessions for as long as a test needs them (e2e/support/kazoo.ts runs one-shot operations).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Locator, Page } from '@playwright/test';

export class EnsemblePage {
  readonly quorum: Locator;
  readonly members: Locator;
  readonly alerts: Locator;
  readonly sizing: Locator;
  readonly sessions: Locator;
  readonly sessionFilter: Locator;
  readonly gatherNow: Locator;

  constructor(readonly page: Page) {
    this.quorum = page.getByRole('status', { name: 'Quorum' });
    this.members = page.getByRole('region', { name: 'Members' }).getByRole('article');
    this.alerts = page.getByRole('region', { name: 'Alerts' });
    this.sizing = page.getByRole('region', { name: 'Sizing' });
    this.sessions = page.getByRole('table', { name: 'Sessions' });
    this.sessionFilter = page.getByRole('searchbox', { name: 'Filter sessions' });
    this.gatherNow = page.getByRole('button', { name: 'Gather now' });
  }

  member(address: string): Locator {
    return this.page.getByRole('article', { name: address, exact: true });
  }

  /** "checked 4 s ago" on a member's card. */
  memberChecked(address: string): Locator {
    return this.member(address).locator('time').filter({ hasText: /^checked / });
  }

  /** The sessions snapshot's time ("Gathered 12 s ago"): its dateTime is the gathering's. */
  get gatheredAt(): Locator {
    return this.page.locator('.gather__when time');
  }

  /** When the shown sessions were gathered (epoch ms), from the time element's dateTime. */
  async gatheredAtMs(): Promise<number> {
    const iso = await this.gatheredAt.getAttribute('datetime');
    if (iso === null) throw new Error('no gathering time shown');
    return Date.parse(iso);
  }

  sessionRow(sessionId: string): Locator {
    return this.sessions.getByRole('row').filter({ hasText: sessionId });
  }

  async openMembers(ensemble: string, address?: string): Promise<void> {
    await this.page.goto(`/ensembles/${encodeURIComponent(ensemble)}/members${address ? `/${address}` : ''}`);
  }

  async openSessions(ensemble: string, sessionId?: string): Promise<void> {
    await this.page.goto(`/ensembles/${encodeURIComponent(ensemble)}/sessions${sessionId ? `/${sessionId}` : ''}`);
  }

  async openWatches(ensemble: string): Promise<void> {
    await this.page.goto(`/ensembles/${encodeURIComponent(ensemble)}/watches`);
  }

  /** Before the first page load: the theme the page starts in (themePreference's storage key). */
  async useTheme(theme: 'dark' | 'light'): Promise<void> {
    await this.page.addInitScript((t) => localStorage.setItem('keeper.theme', t), theme);
  }
}

/**
 * The admin token Keeper signs in with: KEEPER_ADMIN_TOKEN when the server was given one, else
 * the one `npm start` generates in its data dir (server/src/config/cli.ts defaultDataDir and
 * auth/generatedToken.ts: $XDG_STATE_HOME/keeper/server/admin-token). null: no auth to pass.
 */
export function adminToken(): string | null {
  if (process.env.KEEPER_ADMIN_TOKEN) return process.env.KEEPER_ADMIN_TOKEN;
  const stateHome = process.env.XDG_STATE_HOME || join(process.env.HOME || homedir(), '.local', 'state');
  try {
    return readFileSync(join(stateHome, 'keeper', 'server', 'admin-token'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Signs the browser in (the server sets its session cookie and redirects); a server without auth just serves `/`. */
export async function signIn(page: Page): Promise<void> {
  const token = adminToken();
  await page.goto(token ? `/?token=${encodeURIComponent(token)}` : '/');
}

export interface HeldClient {
  hosts: string;
  /** Seconds, as kazoo takes it. */
  timeout: number;
  ephemerals?: string[];
  /** Paths to set a data watch on (exists), as lock waiters and config readers do. */
  watch?: string[];
}

export interface HeldSessions {
  /** Session ids in plan order, as ZooKeeper prints them. */
  ids: string[];
  /** SIGSTOP: the clients stay connected but fall silent (the FAQ's hung process, client side). */
  freeze(): void;
  /** SIGKILL: the connections drop; the sessions and their ephemerals stay until they expire. */
  kill(): Promise<void>;
}

// Plans travel as JSON through argv, never spliced into Python source. Clients read a node now
// and then so their sessions look busy, like real workers.
const HOLD_SCRIPT = `
import json, sys, time
from kazoo.client import KazooClient
plans = json.loads(sys.argv[1])
clients = []
for plan in plans:
    zk = KazooClient(hosts=plan['hosts'], timeout=plan['timeout'])
    zk.start(timeout=20)
    clients.append(zk)
    for path in plan.get('ephemerals', []):
        zk.create(path, b'', ephemeral=True, makepath=True)
    for path in plan.get('watch', []):
        zk.exists(path, watch=lambda event: None)
print('ready ' + json.dumps(['0x%x' % zk.client_id[0] for zk in clients]), flush=True)
while True:
    time.sleep(2)
    for zk in clients:
        try:
            zk.exists('/')
        except Exception:
            pass
`;

/** Starts one python process holding every planned session until kill(); resolves once all are open. */
export async function holdSessions(plans: HeldClient[], readyWithinMs = 60_000): Promise<HeldSessions> {
  const child: ChildProcess = spawn('/usr/bin/python3', ['-c', HOLD_SCRIPT, JSON.stringify(plans)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    const ids = await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kazoo not ready within ${readyWithinMs} ms: ${stderr.slice(-2000)}`)), readyWithinMs);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.startsWith('ready ')) return;
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(6)) as string[]);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`kazoo exited (${code}) before ready: ${stderr.slice(-2000)}`));
      });
    });
    return { ids, kill, freeze: () => void child.kill('SIGSTOP') };
  } catch (error) {
    await kill();
    throw error;
  }
}
