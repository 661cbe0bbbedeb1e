/**
 * Sign-in, write controls, share links and the audit trail as a page object: role-based locators
 * only (the accessible names the UI promises), so the markup can move freely.
 */
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';

export class AccessPage {
  readonly user: Locator;
  readonly editData: Locator;
  readonly createChild: Locator;
  readonly deleteButton: Locator;
  readonly shareButton: Locator;
  readonly editor: Locator;
  readonly conflict: Locator;
  readonly dialog: Locator;
  readonly auditNav: Locator;
  readonly auditTable: Locator;
  readonly auditFilter: Locator;
  readonly shareLinks: Locator;
  readonly jobProgress: Locator;

  constructor(readonly page: Page) {
    this.user = page.getByRole('button', { name: /^Signed in:/ });
    this.editData = page.getByRole('button', { name: 'Edit data', exact: true });
    this.createChild = page.getByRole('button', { name: 'Create child', exact: true });
    this.deleteButton = page.getByRole('button', { name: 'Delete', exact: true });
    this.shareButton = page.getByRole('button', { name: 'Share read-only link', exact: true });
    this.editor = page.getByRole('textbox', { name: 'Znode data editor', exact: true });
    this.conflict = page.getByRole('alert').filter({ hasText: 'changed since you opened it' });
    this.dialog = page.getByRole('dialog');
    this.auditNav = page.getByRole('link', { name: 'Audit', exact: true });
    this.auditTable = page.getByRole('table', { name: 'Audit entries' });
    this.auditFilter = page.getByRole('searchbox', { name: 'Filter audit entries' });
    this.shareLinks = page.getByRole('table', { name: 'Share links' });
    this.jobProgress = page.getByRole('region', { name: 'Job progress' });
  }

  button(name: string | RegExp): Locator {
    return this.page.getByRole('button', typeof name === 'string' ? { name, exact: true } : { name });
  }

  /** Makes a share link to the page open now and returns its URL (shown once). */
  async createShareLink(expiry: '1 h' | '8 h' | '24 h' | '7 d' = '1 h', note?: string): Promise<string> {
    await this.shareButton.click();
    await this.dialog.getByRole('radio', { name: expiry }).click();
    if (note) await this.dialog.getByRole('textbox', { name: 'Note (optional)' }).fill(note);
    await this.button('Create link').click();
    const url = await this.dialog.getByRole('textbox', { name: 'Share link', exact: true }).inputValue();
    await this.button('Done').click();
    return url;
  }

  async signInWithToken(token: string): Promise<void> {
    // The Token tab is shown only when passwords are offered too (users configured); the form
    // appears once the page knows which ways are offered, so wait for it before looking for a tab.
    const tab = this.button('Token');
    const field = this.page.getByLabel('Token', { exact: true });
    await field.or(tab).first().waitFor();
    if (await tab.isVisible()) await tab.click();
    await field.fill(token);
    await this.button('Sign in').click();
  }
}

/**
 * A browser context with no identity: playwright.config.ts gives every context the admin's bearer
 * header, which would override any cookie; this one sends nothing but its own cookies.
 */
export async function anonymousContext(browser: Browser, theme: 'dark' | 'light'): Promise<BrowserContext> {
  const context = await browser.newContext({ extraHTTPHeaders: {}, viewport: { width: 1440, height: 900 } });
  await context.addInitScript((t) => localStorage.setItem('keeper.theme', t), theme);
  return context;
}

export async function useTheme(page: Page, theme: 'dark' | 'light'): Promise<void> {
  await page.addInitScript((t) => localStorage.setItem('keeper.theme', t), theme);
}
