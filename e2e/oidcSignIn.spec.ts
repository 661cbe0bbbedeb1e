/**
 * Single sign-on in Chromium (issue 20 items 1 and 2), through a REAL OpenID Connect provider (npm
 * oidc-provider, started here on loopback, with its own login and consent pages) and a Keeper of
 * this spec's own, configured with it and with grants, against the e2e sandbox:
 *  - the sign-in page offers "Sign in with Test IdP"; a writer of /app/billing goes through the
 *    provider's login and consent and lands where it started, sees write controls on its subtree
 *    only, saves a value kazoo reads, and its "who am I" panel shows its rights;
 *  - a person in no granted group gets the no-access page naming the groups that would give access;
 *  - a sign-in refused at the provider comes back saying so.
 * Screenshots (dark, light, phone) of the sign-in page, the no-access page and the who-am-I panel.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { kazoo, kazooGet } from '../scripts/lib/kazoo/index.js';
import { launchKeeper, type KeeperProcess } from '../scripts/lib/keeperProcess.js';
import { startOidcProvider, type RunningOidcProvider } from '../scripts/lib/oidc/index.js';
import { KEEPER_PORTS, OIDC_PROVIDER_PORTS } from '../scripts/sandbox/portOffsets.js';
import { E2E_HOSTS } from './support/ensemble.js';
import { AccessPage } from './support/accessPage.js';
import { TreePage } from './support/treePage.js';
import { docsShot, settle } from './support/screenshots.js';

const KEEPER_URL = `http://127.0.0.1:${KEEPER_PORTS.e2eOidc}`;
const SECRET = 'e2e-oidc-client-secret';
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let provider: RunningOidcProvider;
let keeper: KeeperProcess;
let dataDir: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await kazoo(E2E_HOSTS, [
    { op: 'ensure', path: '/app/billing' },
    { op: 'delete', path: '/app/billing', recursive: true },
    { op: 'ensure', path: '/app/payments' },
    { op: 'delete', path: '/app/payments', recursive: true },
    { op: 'create', path: '/app/billing/invoice-settings', data: '{"currency":"EUR","dueDays":30}' },
    { op: 'create', path: '/app/billing/retry-policy', data: '{"attempts":3}' },
    { op: 'create', path: '/app/payments/gateway', data: '{"provider":"acme"}' },
  ]);
  provider = await startOidcProvider({
    port: OIDC_PROVIDER_PORTS.e2e,
    clients: [{ client_id: 'keeper', client_secret: SECRET, redirect_uris: [`${KEEPER_URL}/auth/oidc/callback`] }],
    accounts: {
      bob: { preferred_username: 'bob', email: 'bob@example.com', groups: ['billing', 'staff'] },
      mallory: { preferred_username: 'mallory', email: 'mallory@example.com', groups: ['marketing', 'staff'] },
    },
  });
  dataDir = mkdtempSync(join(tmpdir(), 'keeper-e2e-oidc-'));
  const config = join(dataDir, 'keeper.json');
  writeFileSync(
    config,
    JSON.stringify({
      ensembles: [{ name: 'default', connectionString: E2E_HOSTS }],
      auth: {
        oidc: { issuer: provider.issuer, clientId: 'keeper', clientSecretEnv: 'KEEPER_OIDC_SECRET', name: 'Test IdP' },
        grants: [
          { group: 'zk-admins', role: 'admin' },
          { group: 'oncall', role: 'viewer' },
          { group: 'billing', role: 'writer', ensemble: 'default', paths: ['/app/billing'] },
        ],
      },
    }),
  );
  keeper = await launchKeeper(['--config', config, '--port', String(KEEPER_PORTS.e2eOidc), '--data-dir', dataDir], {
    KEEPER_OIDC_SECRET: SECRET,
    KEEPER_ADMIN_TOKEN: 'e2e-oidc-spec-admin-token-0123456789',
  });
});

test.afterAll(async () => {
  // Its subtrees go with it: a later spec on this lane's sandbox (explorer's tree of /app) would meet a second "payments".
  await kazoo(E2E_HOSTS, [
    { op: 'ensure', path: '/app/billing' },
    { op: 'delete', path: '/app/billing', recursive: true },
    { op: 'ensure', path: '/app/payments' },
    { op: 'delete', path: '/app/payments', recursive: true },
  ]);
  await keeper?.stop('SIGTERM');
  await provider?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A browser with no identity (playwright.config.ts gives others the admin's bearer header), in one theme. */
async function freshPage(browser: Browser, theme: 'dark' | 'light', viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: {}, viewport, colorScheme: theme });
  // Only the first page's theme: a test may switch it later and reload.
  await context.addInitScript((t) => {
    if (localStorage.getItem('keeper.theme') === null) localStorage.setItem('keeper.theme', t);
  }, theme);
  return context.newPage();
}

/** Through the provider's own pages: its login form, then its consent. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('the sign-in page offers the provider beside the token', async ({ browser }, info) => {
  for (const [theme, viewport, name] of [
    ['dark', DESKTOP, 'sign-in-sso-dark.png'],
    ['light', DESKTOP, 'sign-in-sso-light.png'],
    ['light', PHONE, 'sign-in-sso-phone.png'],
  ] as const) {
    const page = await freshPage(browser, theme, viewport);
    await page.goto(`${KEEPER_URL}/ensembles/default/znodes/app/billing`);
    await expect(page).toHaveURL(/\/login\?next=/);
    await expect(page.getByRole('link', { name: 'Sign in with Test IdP' })).toBeVisible();
    await expect(page.getByText('or with a token')).toBeVisible();
    await settle(page);
    await page.screenshot({ path: docsShot(name, (n) => info.outputPath(n)) });
    await page.context().close();
  }
});

test('a writer signs in through the provider and may change znodes in its subtree only', async ({ browser }, info) => {
  const page = await freshPage(browser, 'dark');
  const ui = new AccessPage(page);
  const tree = new TreePage(page);
  await page.goto(`${KEEPER_URL}/ensembles/default/znodes/app/billing/invoice-settings`);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await signInAtProvider(page, 'bob');
  // Back where it started, signed in as the provider's user, with the rights its group gives.
  await expect(page).toHaveURL(`${KEEPER_URL}/ensembles/default/znodes/app/billing/invoice-settings`);
  await expect(ui.user).toContainText('bob');
  await expect(ui.user).toContainText('writer');
  await expect(tree.data).toContainText('EUR');

  // Inside /app/billing: the write controls, and a save kazoo reads.
  await expect(ui.editData).toBeVisible();
  await expect(ui.createChild).toBeVisible();
  await expect(ui.deleteButton).toBeVisible();
  await ui.editData.click();
  await ui.editor.fill('{"currency":"EUR","dueDays":45}');
  await ui.button('Save').click();
  await expect(ui.editor).toBeHidden();
  await expect.poll(async () => (await kazooGet(E2E_HOSTS, '/app/billing/invoice-settings'))?.data).toBe('{"currency":"EUR","dueDays":45}');

  // Elsewhere: the same screens without write controls (absent, not disabled); nor ACL editing, nor admin pages.
  for (const path of ['/app/payments/gateway', '/app']) {
    await page.goto(`${KEEPER_URL}/ensembles/default/znodes${path}`);
    await expect(tree.data).toBeVisible();
    await expect(ui.editData).toHaveCount(0);
    await expect(ui.createChild).toHaveCount(0);
    await expect(ui.deleteButton).toHaveCount(0);
  }
  await page.goto(`${KEEPER_URL}/ensembles/default/znodes/app/billing/retry-policy`);
  await expect(ui.editData).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit ACL' })).toHaveCount(0);
  await expect(ui.auditNav).toHaveCount(0);
  await expect(ui.shareButton).toHaveCount(0);

  // Who am I: how it signed in, its groups, and exactly where it may write.
  await ui.user.click();
  const panel = page.getByRole('dialog', { name: 'bob' });
  await expect(panel).toContainText('Signed in with Test IdP');
  const rights = panel.getByRole('region', { name: 'Effective rights' });
  await expect(rights).toContainText(/Read\s*everything/);
  await expect(rights).toContainText(/Change\s*default\s*\/app\/billing/);
  await expect(rights).toContainText('ACLs, lock cleanup, upgrades, share links and the audit trail are for admins');
  await expect(rights).toContainText('billing');
  await expect(rights).toContainText('staff');
  await settle(page);
  await page.screenshot({ path: docsShot('whoami-dark.png', (n) => info.outputPath(n)) });

  for (const [theme, viewport, name] of [
    ['light', DESKTOP, 'whoami-light.png'],
    ['light', PHONE, 'whoami-phone.png'],
  ] as const) {
    // The same browser's session, in another theme and size.
    await page.setViewportSize(viewport);
    await page.evaluate((t) => localStorage.setItem('keeper.theme', t), theme);
    await page.reload();
    await expect(ui.user).toBeVisible();
    await ui.user.click();
    await expect(page.getByRole('region', { name: 'Effective rights' })).toContainText('/app/billing');
    await settle(page);
    await page.screenshot({ path: docsShot(name, (n) => info.outputPath(n)) });
    await page.keyboard.press('Escape');
  }

  // Sign-out ends Keeper's session.
  await page.setViewportSize(DESKTOP);
  await ui.user.click();
  await ui.button('Sign out').click();
  await expect(page).toHaveURL(/\/login/);
  await page.context().close();
});

test('a person in no granted group is told so, with the groups that would give access', async ({ browser }, info) => {
  for (const [theme, viewport, name] of [
    ['dark', DESKTOP, 'no-access-dark.png'],
    ['light', DESKTOP, 'no-access-light.png'],
    ['light', PHONE, 'no-access-phone.png'],
  ] as const) {
    const page = await freshPage(browser, theme, viewport);
    await page.goto(`${KEEPER_URL}/login`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await signInAtProvider(page, 'mallory');
    await expect(page.getByRole('heading', { name: 'No access to this Keeper' })).toBeVisible();
    await expect(page.locator('main')).toContainText('mallory');
    await expect(page.locator('main')).toContainText('marketing');
    await expect(page.locator('main')).toContainText('billing (writer of default: /app/billing)');
    await expect(page.locator('main')).toContainText('zk-admins (admin)');
    await settle(page);
    await page.screenshot({ path: docsShot(name, (n) => info.outputPath(n)) });
    await page.context().close();
  }
});

test('a sign-in refused at the provider comes back saying so', async ({ browser }) => {
  const page = await freshPage(browser, 'light');
  await page.goto(`${KEEPER_URL}/login`);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.getByRole('link', { name: '[ Cancel ]' }).click();
  await expect(page.getByRole('heading', { name: 'Sign-in with Test IdP did not go through' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('Test IdP did not sign you in: access_denied (End-User aborted interaction)');
  await page.getByRole('link', { name: 'Sign in again' }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.context().close();
});
