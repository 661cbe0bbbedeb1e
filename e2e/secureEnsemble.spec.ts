/**
 * A production-like ensemble in Chromium (issue 19, items 3 to 5): `npm start -- --secure` run
 * for real (a TLS-only sandbox with its own CA, SASL DIGEST-MD5 required, read-only members,
 * Keeper configured for it). The ensemble's header says how the console connects and who
 * ZooKeeper sees it as (whoAmI: sasl:keeper, x509:CN=keeper); its popover names the TLS check and SASL; a znode
 * that only sasl:keeper may read is browsed and edited; a znode only sasl:billing may read
 * explains the refusal with both identities (on a phone, in the badge's popover); two members frozen, the page is read-only and every
 * write control is disabled with the reason, until they are back. Screenshots (dark, light, phone) in the test output.
 *
 * The sandbox has a port offset of its own (secureE2e): npm test runs the e2e specs beside the
 * integration files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_ADMIN_TOKEN } from '../playwright.config.js';
import { launchKeeper, type KeeperProcess } from '../scripts/lib/keeperProcess.js';
import { KEEPER_PORTS, PORT_OFFSETS } from '../scripts/sandbox/portOffsets.js';
import { runDrill } from '../scripts/sandbox/controlClient.js';
import { memberPorts } from '../scripts/sandbox/ports.js';
import { useTheme } from './support/accessPage.js';
import { DOCS_SCREENSHOTS, docsShot, settle } from './support/screenshots.js';
import { TreePage } from './support/treePage.js';

const KEEPER_URL = `http://127.0.0.1:${KEEPER_PORTS.e2eSecure}`;
const UNVERIFIED_URL = `http://127.0.0.1:${KEEPER_PORTS.e2eSecureUnverified}`;
const ROOT = '/secure-e2e';
const MINE = `${ROOT}/keeper-only`;
const BILLING = `${ROOT}/billing-only`;
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let keeper: KeeperProcess;
let stateDir: string;

test.describe.configure({ mode: 'serial' });
test.use({ baseURL: KEEPER_URL, viewport: DESKTOP });

/** Keeper's admin API, as a script calls it (no Origin: identity alone decides). */
async function api(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${KEEPER_URL}${path}`, {
    method,
    headers: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function ok(response: Promise<Response>): Promise<unknown> {
  const r = await response;
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.status}: ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-e2e-secure-'));
  keeper = await launchKeeper(
    [
      '--secure',
      '--sandbox-port-offset',
      String(PORT_OFFSETS.secureE2e),
      '--state-dir',
      join(stateDir, 'sandbox'),
      '--data-dir',
      join(stateDir, 'server'),
      '--port',
      String(KEEPER_PORTS.e2eSecure),
    ],
    { KEEPER_ADMIN_TOKEN: E2E_ADMIN_TOKEN },
    { timeoutMs: 150_000 },
  );
  // Printed right after "Keeper is serving", which launchKeeper waits for.
  await expect.poll(() => keeper.stdout()).toMatch(/TLS only \(CA \S+ca\.pem/);
  await expect.poll(() => keeper.stdout()).toMatch(/requires SASL DIGEST-MD5 \(Keeper is keeper, password in \S+\)/);
  // Made through Keeper itself: over TLS, as sasl:keeper. The billing node keeps ADMIN for Keeper,
  // so ZooKeeper shows its ACL and the page can name who may read it.
  const at = (path: string) => `/api/ensembles/default/znodes${path}`;
  const acl = (path: string) => `/api/ensembles/default/acl${path}`;
  await ok(api('POST', at(ROOT), {}));
  await ok(api('POST', at(MINE), { data: 'replicas=3', encoding: 'utf8' }));
  await ok(api('PUT', acl(MINE), { acl: [{ scheme: 'sasl', id: 'keeper', perms: 'cdrwa' }], version: 0 }));
  await ok(api('POST', at(BILLING), { data: 'invoice run', encoding: 'utf8' }));
  await ok(
    api('PUT', acl(BILLING), {
      acl: [
        { scheme: 'sasl', id: 'billing', perms: 'cdrwa' },
        { scheme: 'sasl', id: 'keeper', perms: 'a' },
      ],
      version: 0,
      confirm: BILLING,
    }),
  );
});

test.afterAll(async () => {
  await keeper?.stop('SIGTERM');
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

const chip = (page: Page) => page.getByRole('note', { name: /^Connection: TLS/ });

/** To docs/screenshots/ with KEEPER_DOCS_SCREENSHOTS=1 (docs/operating/secured-ensembles.md shows them), else the test's output folder. */
async function shot(page: Page, name: string, outputPath: (name: string) => string): Promise<void> {
  await settle(page);
  await page.screenshot({ path: docsShot(name, outputPath) });
}

/** What the page draws for a disabled control: it must read as disabled at a glance, in either theme. */
async function looksDisabled(control: ReturnType<Page['getByRole']>): Promise<void> {
  await expect(control).toBeDisabled();
  const style = await control.evaluate((e) => {
    const s = getComputedStyle(e);
    return { opacity: Number(s.opacity), cursor: s.cursor };
  });
  expect(style.opacity).toBeLessThanOrEqual(0.45);
  expect(style.cursor).toBe('not-allowed');
}

test('the header says TLS and who ZooKeeper sees Keeper as; a node only sasl:keeper may read is browsed and edited', async ({ page }, info) => {
  await useTheme(page, 'dark');
  const tree = new TreePage(page);
  await tree.open('default', MINE);
  await expect(tree.sessionBadge).toHaveAccessibleName('Console session: connected');
  await expect(chip(page)).toHaveText('TLS · sasl:keeper · x509:CN=keeper', { timeout: 20_000 });
  await expect(chip(page)).toHaveAccessibleName(
    /server certificate checked against \S+ca\.pem.*SASL DIGEST-MD5 as keeper\. ZooKeeper sees Keeper as sasl:keeper, x509:CN=keeper, ip:127\.0\.0\.1/,
  );
  await expect(tree.data).toContainText('replicas=3');
  await shot(page, 'secure-header-dark.png', (n) => info.outputPath(n));

  // The popover: transport, SASL and whoAmI's answer.
  await tree.sessionBadge.click();
  const facts = page.getByRole('region', { name: 'Connection' });
  await expect(facts).toContainText('TLS, server certificate checked against');
  await expect(facts).toContainText('DIGEST-MD5 as keeper');
  await expect(facts).toContainText('sasl:keeper, x509:CN=keeper, ip:127.0.0.1');
  await shot(page, 'secure-popover-dark.png', (n) => info.outputPath(n));
  await page.keyboard.press('Escape');

  // A write over TLS as sasl:keeper, read back through the API.
  await page.getByRole('button', { name: 'Edit data', exact: true }).click();
  const editor = page.getByRole('textbox', { name: 'Znode data editor', exact: true });
  await expect(editor).toHaveValue('replicas=3');
  await editor.fill('replicas=5');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(editor).toBeHidden();
  await expect(tree.data).toContainText('replicas=5');
  const stored = await fetch(`${KEEPER_URL}/api/ensembles/default/data${MINE}`, { headers: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` } });
  expect(await stored.text()).toBe('replicas=5');
});

test('a node only sasl:billing may read says whom ZooKeeper sees and whom the ACL allows', async ({ page }, info) => {
  await useTheme(page, 'light');
  const tree = new TreePage(page);
  await tree.open('default', BILLING);
  const noAccess = page.getByRole('status', { name: 'No read access' });
  await expect(noAccess).toContainText(
    'ZooKeeper sees Keeper as sasl:keeper, x509:CN=keeper, ip:127.0.0.1; this node’s ACL grants read only to sasl:billing.',
    {
      timeout: 20_000,
    },
  );
  await expect(page.getByRole('region', { name: 'Access needed' })).toContainText('authenticate Keeper as billing');
  await shot(page, 'secure-no-auth-light.png', (n) => info.outputPath(n));
});

test('on a phone the session badge keeps its state word: the connection is in its popover', async ({ page }, info) => {
  await page.setViewportSize(PHONE);
  await useTheme(page, 'light');
  const tree = new TreePage(page);
  await tree.open('default', MINE);
  await expect(tree.sessionBadge).toHaveAccessibleName('Console session: connected');
  await expect(chip(page)).toBeHidden();
  // The state word is whole (the chip beside it clipped it to "connectec").
  const clipped = await tree.sessionBadge.locator('.session-badge__headline').evaluate((e) => e.scrollWidth > e.clientWidth + 1);
  expect(clipped).toBe(false);
  await tree.sessionBadge.click();
  await expect(page.getByRole('region', { name: 'Connection' })).toContainText('sasl:keeper, x509:CN=keeper, ip:127.0.0.1');
  await shot(page, 'secure-header-phone.png', (n) => info.outputPath(n));
});

test('two members frozen: read-only, the tree still browses, write controls say why, and come back with the quorum', async ({ page }, info) => {
  test.setTimeout(150_000);
  await useTheme(page, 'dark');
  const tree = new TreePage(page);
  await tree.open('default', MINE);
  await expect(tree.sessionBadge).toHaveAccessibleName('Console session: connected');
  const list = (await ok(api('GET', '/api/ensembles'))) as { ensembles: { session: { member: string | null } }[] };
  const port = Number(list.ensembles[0]?.session.member?.split(':')[1]);
  const mine = port - 2190 - PORT_OFFSETS.secureE2e;
  expect([1, 2, 3]).toContain(mine);
  const others = [1, 2, 3].filter((id) => id !== mine);
  const sandboxDir = join(stateDir, 'sandbox');
  const edit = page.getByRole('button', { name: 'Edit data', exact: true });
  for (const id of others) await runDrill(sandboxDir, 'freeze', id, { timeoutMs: 20_000 });
  try {
    await expect(tree.sessionBadge).toHaveAccessibleName('Console session: readOnly', { timeout: 60_000 });
    await expect(tree.data).toContainText('replicas=5');
    const reason = `Writes are paused: read-only: member ${mine} has lost quorum; data as of its last sync.`;
    await expect(edit).toBeDisabled();
    await expect(edit).toHaveAttribute('title', reason);
    for (const name of ['Create child', 'Delete', 'Import']) await expect(page.getByRole('button', { name, exact: true })).toHaveAttribute('title', reason);
    const editAcl = page.getByRole('button', { name: 'Edit ACL', exact: true });
    await expect(editAcl).toHaveAttribute('title', reason);
    await looksDisabled(editAcl);
    await looksDisabled(edit);
    await expect(page.getByRole('group', { name: 'Znode actions' }).getByRole('note')).toHaveText('read-only: writes paused');
    // The toolbar's reasons leave the path little room: they give way first, so the path shows
    // whole (or each ancestor at least its "…") and the node's own name is never cut.
    const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
    expect(await breadcrumb.evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
    const crumbs = await breadcrumb
      .locator('li:not(.breadcrumb__sep):not(.breadcrumb__fold)')
      .evaluateAll((items) => items.map((e) => ({ text: e.textContent ?? '', whole: e.scrollWidth <= e.clientWidth + 1, width: e.clientWidth })));
    expect(crumbs.map((c) => c.text)).toEqual(['/', 'secure-e2e', 'keeper-only']);
    for (const c of crumbs) expect(c.whole || c.width >= 10, `${c.text} shows whole or with room for "…" (${c.width} px)`).toBe(true);
    await shot(page, 'secure-read-only-dark.png', (n) => info.outputPath(n));
    if (DOCS_SCREENSHOTS) {
      // The same page in the light theme, for its picture (the theme lives on <html data-theme>).
      await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
      await expect(tree.sessionBadge).toHaveAccessibleName('Console session: readOnly', { timeout: 30_000 });
      await looksDisabled(editAcl);
      await shot(page, 'secure-read-only-light.png', (n) => info.outputPath(n));
    }
  } finally {
    for (const id of others) await runDrill(sandboxDir, 'thaw', id, { timeoutMs: 20_000 });
  }
  await expect(tree.sessionBadge).toHaveAccessibleName('Console session: connected', { timeout: 60_000 });
  await expect(edit).toBeEnabled();
});

test('with rejectUnauthorized: false the header warns in amber, on a desktop and on a phone', async ({ page }, info) => {
  test.setTimeout(120_000);
  // A second Keeper on the same sandbox, configured as an operator who skips the server check would.
  const sandboxDir = join(stateDir, 'sandbox');
  const tlsDir = join(sandboxDir, 'tls');
  const members = [1, 2, 3].map((id) => memberPorts(id, PORT_OFFSETS.secureE2e));
  const configFile = join(stateDir, 'unverified.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ensembles: [
        {
          name: 'default',
          connectionString: members.map((m) => `127.0.0.1:${m.clientPort}`).join(','),
          members: members.map((m) => ({ host: '127.0.0.1', clientPort: m.clientPort, adminPort: m.adminPort })),
          tls: { ca: join(tlsDir, 'sandbox-ca.pem'), cert: join(tlsDir, 'keeper.pem'), key: join(tlsDir, 'keeper.key'), rejectUnauthorized: false },
          sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', passwordFile: join(sandboxDir, 'sasl-keeper.password') },
        },
      ],
    }),
  );
  const unverified = await launchKeeper(
    ['--config', configFile, '--data-dir', join(stateDir, 'server-unverified'), '--port', String(KEEPER_PORTS.e2eSecureUnverified)],
    { KEEPER_ADMIN_TOKEN: E2E_ADMIN_TOKEN },
    { timeoutMs: 60_000 },
  );
  try {
    await expect.poll(() => unverified.stdout() + unverified.stderr()).toMatch(/rejectUnauthorized/);
    const warnChip = page.getByRole('note', { name: /^Connection: TLS, server certificate NOT checked.*Warning: TLS without verification/ });
    const tree = new TreePage(page);

    await useTheme(page, 'light');
    await page.goto(`${UNVERIFIED_URL}/ensembles/default/znodes${MINE}`);
    await expect(tree.sessionBadge).toHaveAccessibleName('Console session: connected', { timeout: 30_000 });
    await expect(warnChip).toHaveText('TLS unverified · sasl:keeper · x509:CN=keeper', { timeout: 20_000 });
    await shot(page, 'secure-unverified-light.png', (n) => info.outputPath(n));

    // On a phone the warning stays (a lock in amber, the words in its name) and the state word is whole.
    await page.setViewportSize(PHONE);
    await expect(warnChip).toBeVisible();
    const clipped = await tree.sessionBadge.locator('.session-badge__headline').evaluate((e) => e.scrollWidth > e.clientWidth + 1);
    expect(clipped).toBe(false);
    const header = await page.locator('header').first().boundingBox();
    expect(header?.width ?? 0).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'secure-unverified-phone.png', (n) => info.outputPath(n));
  } finally {
    await unverified.stop('SIGTERM');
  }
});
