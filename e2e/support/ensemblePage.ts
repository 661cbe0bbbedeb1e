/**
 * The ensemble, sessions and watches views as a page object (role-based locators only, so the
 * markup can move), plus signing in, which their specs need around them. Kazoo clients holding
 * sessions come from scripts/lib/kazoo.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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
    return this.member(address)
      .locator('time')
      .filter({ hasText: /^checked / });
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
