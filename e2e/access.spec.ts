/**
 * Access control and admin operations end to end, against the real sandbox ensemble: an admin
 * edits, creates and deletes through the UI and kazoo (another client) confirms every change; a
 * stale edit is refused and shown as a conflict, nothing overwritten; a recursive delete shows
 * progress and can be cancelled; a share link gives a second browser a live, read-only view until
 * it is revoked; viewers sign in on /login; the audit trail lists it all. Screenshots go to docs/screenshots/
 * with KEEPER_DOCS_SCREENSHOTS=1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_ADMIN_TOKEN, E2E_DELETE_HOLD_AFTER as HOLD_AFTER, E2E_VIEWER_TOKEN } from '../playwright.config.js';
import { kazoo, kazooGet } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { TreePage } from './support/treePage.js';
import { AccessPage, anonymousContext, useTheme } from './support/accessPage.js';
import { checkedVariants, docsShot, settle } from './support/screenshots.js';

// The size the docs' screenshots are taken at (like docs/screenshots/tree-*.png).
test.use({ viewport: { width: 1440, height: 900 } });

const get = (path: string) => kazooGet(E2E_HOSTS, path, { subtree: true });

/**
 * The specs whose screenshots go into the docs work under /app (paths an operator would
 * recognise, not /e2e/<hash>): each owns one fixed path there, emptied first. No other spec
 * touches /app, and specs run one at a time.
 */
async function freshShowcase(path: string): Promise<void> {
  await kazoo(E2E_HOSTS, [
    { op: 'ensure', path },
    { op: 'delete', path, recursive: true },
  ]);
}

test('an admin edits a znode in the UI and another client reads the new value', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  const node = `${root}/service-config`;
  await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: '{"replicas":3}' }]);

  const tree = new TreePage(page);
  const ui = new AccessPage(page);
  await tree.open('default', node);
  await expect(ui.user).toContainText('admin');
  await expect(ui.auditNav).toBeVisible();

  // The editor opens at the value shown and checks JSON as it is typed.
  await ui.editData.click();
  await expect(ui.editor).toHaveValue('{"replicas":3}');
  await ui.editor.fill('{\n  "replicas": 5\n  "region": "eu-west"\n}');
  await expect(ui.dialog).toContainText('invalid JSON');
  await expect(ui.dialog).toContainText('line 3, column 3');
  await expect(ui.button('Save')).toBeDisabled();
  await ui.editor.fill('{"replicas":5,"region":"eu-west"}');
  await ui.button('Pretty-print').click();
  await expect(ui.dialog).toContainText('valid JSON');
  await ui.button('Save').click();
  await expect(ui.editor).toBeHidden();

  // The page follows live, and kazoo reads exactly what was saved, one version later.
  await expect(tree.data).toContainText('"region": "eu-west"');
  const written = await get(node);
  expect(written).toMatchObject({ version: 1 });
  expect(JSON.parse(written!.data)).toEqual({ replicas: 5, region: 'eu-west' });
  expect(written!.data).toContain('\n  "replicas": 5');

  // Create a child (Enter submits), then delete it (a leaf: one click, at the version shown).
  await ui.createChild.click();
  await ui.dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('lock-a');
  await ui.dialog.getByRole('textbox', { name: 'Name', exact: true }).press('Enter');
  await expect(page).toHaveURL(/service-config\/lock-a$/);
  expect(await get(`${node}/lock-a`)).toMatchObject({ data: '', version: 0 });
  await ui.deleteButton.click();
  await expect(ui.dialog).toContainText('It has no children');
  await ui.dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page).toHaveURL(/service-config$/);
  await expect.poll(() => get(`${node}/lock-a`)).toBeNull();
});

test('a stale edit shows the conflict and overwrites nothing', async ({ page }, info) => {
  const node = '/app/workers';
  await freshShowcase(node);
  const original = '{"pool":"ingest","desired":5,"autoscale":{"min":3,"max":12,"targetCpu":0.65},"drain":false,"updatedBy":"deploy-bot"}';
  await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: original }]);

  await useTheme(page, 'dark');
  const tree = new TreePage(page);
  const ui = new AccessPage(page);
  await tree.open('default', node);
  await ui.editData.click();
  await expect(ui.editor).toHaveValue(original);

  // Another client changes the node while the editor is open: the editor says so at once.
  const theirs = '{"pool":"ingest","desired":9,"autoscale":{"min":3,"max":12,"targetCpu":0.65},"drain":true,"updatedBy":"oncall-bot"}';
  await kazoo(E2E_HOSTS, [{ op: 'set', path: node, data: theirs }]);
  await expect(ui.dialog).toContainText('Changed meanwhile', { timeout: 3_000 });

  // Saving anyway is refused by the server (409): both values side by side, nothing written.
  const mine = JSON.stringify({ pool: 'ingest', desired: 7, autoscale: { min: 3, max: 12, targetCpu: 0.7 }, drain: false, updatedBy: 'ann' }, null, 2);
  await ui.editor.fill(mine);
  await ui.button('Save').click();
  await expect(ui.conflict).toBeVisible();
  await expect(ui.conflict).toContainText('Not saved');
  await expect(ui.conflict).toContainText('You started from version 0; it is now version 1');
  await expect(ui.conflict.getByRole('region', { name: 'Current value · version 1' })).toContainText('"oncall-bot"');
  await expect(ui.conflict.getByRole('region', { name: 'Your value' })).toContainText('"ann"');
  expect(await get(node)).toMatchObject({ data: theirs, version: 1 });
  await settle(page);
  await page.screenshot({ path: docsShot('edit-conflict-dark.png', (n) => info.outputPath(n)) });

  // "Take theirs" closes without writing.
  await ui.button('Take theirs').click();
  await expect(ui.editor).toBeHidden();
  expect(await get(node)).toMatchObject({ data: theirs, version: 1 });

  // Overwriting is a choice made at the version seen: it writes mine at version 1 -> 2.
  await ui.editData.click();
  await kazoo(E2E_HOSTS, [{ op: 'set', path: node, data: '{"desired":10}' }]);
  await ui.editor.fill(mine);
  await ui.button('Save').click();
  await expect(ui.conflict).toContainText('it is now version 2');
  await ui.button('Overwrite with mine at version 2').click();
  await expect(ui.editor).toBeHidden();
  expect(await get(node)).toMatchObject({ data: mine, version: 3 });
});

test('a recursive delete counts first, shows progress, can be cancelled, and reports what remains', async ({ page }, info) => {
  const big = '/app/archive';
  await freshShowcase(big);
  // 1 + 4 × (1 + 499) = 2,001 nodes. The e2e server holds the first delete of /app/archive after
  // HOLD_AFTER deletes until it is cancelled (KEEPER_TEST_HOLD_DELETE, playwright.config.ts): the
  // screenshot and Cancel land on a job that is provably running, however fast or loaded the machine.
  await kazoo(E2E_HOSTS, [{ op: 'grow', path: big, shards: 4, perShard: 499 }]);

  await useTheme(page, 'light');
  const tree = new TreePage(page);
  const ui = new AccessPage(page);
  // Each opening of the dialog asks for one count: a count asked again (a re-render restarting
  // it) would walk all 2,001 nodes again.
  const counts: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/ensembles/default/subtree/')) counts.push(request.url());
  });
  await tree.open('default', big);
  await ui.deleteButton.click();
  await expect(ui.dialog).toContainText('2,001 nodes');
  await expect(ui.dialog).toContainText('this will delete');
  expect(counts).toHaveLength(1);
  const start = ui.button('Delete 2,001 nodes');
  await expect(start).toBeDisabled();
  await ui.dialog.getByRole('textbox', { name: 'Type archive to confirm' }).fill('archive');
  await start.click();

  const bar = ui.jobProgress.getByRole('progressbar');
  await expect(ui.jobProgress).toContainText('running');
  // Nothing on the page moves by itself while the job runs (the bar changes when the job reports):
  // an endless animation kept a browser without a GPU busy with about 0.75 of a core, taken from
  // ZooKeeper and Keeper on the 2-core machine.
  const moving = () => document.getAnimations().map((a) => ('animationName' in a ? a.animationName : 'transitionProperty' in a ? a.transitionProperty : a.id));
  expect(await page.evaluate(moving)).toEqual([]);
  // The bar reflects the job's own snapshots (aria-valuenow = done, aria-valuemax = total): the
  // listing first (total known), then the deletes, here held at exactly HOLD_AFTER.
  await expect(bar).toHaveAttribute('aria-valuemax', '2001');
  await expect(bar).toHaveAttribute('aria-valuenow', String(HOLD_AFTER));
  await expect(ui.jobProgress).toContainText(`${HOLD_AFTER} of 2,001 nodes deleted`);
  await page.screenshot({ path: docsShot('recursive-delete-progress-light.png', (n) => info.outputPath(n)) });

  await ui.button('Cancel').click();
  await expect(ui.jobProgress).toContainText('cancelled');
  await expect(ui.jobProgress).toContainText(/nodes? remains? \(read back from ZooKeeper after stopping\)/);
  await expect(ui.jobProgress.getByRole('list', { name: 'Remaining nodes' })).toBeVisible();
  const left = 2_001 - HOLD_AFTER;
  expect((await get(big))?.subtree).toBe(left);
  await expect(ui.jobProgress).toContainText(`${left.toLocaleString('en-US')} node`);
  await ui.button('Done').click();

  // Again, to the end (the hold is spent): the count is what remains now.
  await ui.deleteButton.click();
  await expect(ui.dialog).toContainText(`${left.toLocaleString('en-US')} node`);
  expect(counts).toHaveLength(2);
  await ui.dialog.getByRole('textbox', { name: 'Type archive to confirm' }).fill('archive');
  await ui.button(/^Delete [\d,]+ nodes?$/).click();
  await expect(ui.jobProgress).toContainText('completed', { timeout: 30_000 });
  expect(await get(big)).toBeNull();
  await ui.button('Open the parent').click();
  await expect(page).toHaveURL(/\/znodes\/app$/);
});

test('a share link gives a second browser a live, read-only view until it is revoked', async ({ page, browser }, info) => {
  const node = '/app/feature-flags';
  await freshShowcase(node);
  const flags = {
    checkout: { enabled: true, rollout: 100 },
    search: { enabled: true, rollout: 25, variant: 'semantic-v2' },
    recommendations: { enabled: false, owner: 'growth' },
  };
  await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: JSON.stringify(flags) }]);

  const tree = new TreePage(page);
  const admin = new AccessPage(page);
  await tree.open('default', node);
  // The server keeps share links across runs (its data dir): the note names this run's link.
  const note = `e2e run ${Date.now()}`;
  const url = await admin.createShareLink('1 h', note);
  expect(url).toMatch(/\/share\/[A-Za-z0-9_-]+$/);

  // A browser with no identity of its own opens the link: signed in as a viewer, on the page shared.
  const context = await anonymousContext(browser, 'dark');
  const viewerPage = await context.newPage();
  const viewerTree = new TreePage(viewerPage);
  const viewer = new AccessPage(viewerPage);
  await viewerPage.goto(url);
  await expect(viewerPage).toHaveURL(/\/znodes\/app\/feature-flags$/);
  expect(await viewerPage.evaluate(() => fetch('/api/me').then((r) => r.json()))).toMatchObject({ role: 'viewer', via: 'share' });
  await expect(viewerTree.data).toContainText('"variant": "semantic-v2"');
  await expect(viewer.user).toContainText(/shared link · expires in (59 min|1 h)/);

  // The same screens without write controls: absent, not disabled.
  await expect(viewerTree.stat).toContainText('version');
  await expect(viewerPage.getByRole('region', { name: 'Znode ACL' })).toContainText('world:anyone');
  for (const control of [viewer.editData, viewer.deleteButton, viewer.createChild, viewer.shareButton, viewer.auditNav]) {
    await expect(control).toHaveCount(0);
  }
  await expect(viewerPage.getByRole('button', { name: 'Edit ACL' })).toHaveCount(0);
  await expect(viewerPage.getByRole('button', { name: 'Import' })).toHaveCount(0);

  // The admin's next change reaches the viewer live.
  await admin.editData.click();
  await admin.editor.fill(JSON.stringify({ ...flags, search: { ...flags.search, rollout: 50 } }));
  await admin.button('Save').click();
  await expect(viewerTree.data).toContainText('"rollout": 50', { timeout: 3_000 });
  await settle(viewerPage);
  await viewerPage.screenshot({ path: docsShot('share-viewer-dark.png', (n) => info.outputPath(n)) });

  // The server refuses the viewer's writes whatever a page sends.
  const refused = await viewerPage.evaluate(async (p) => {
    const me = (await (await fetch('/api/me')).json()) as { csrfToken: string };
    const r = await fetch(`/api/ensembles/default/znodes${p}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrfToken },
      body: JSON.stringify({ data: 'x', version: 1 }),
    });
    return r.status;
  }, node);
  expect(refused).toBe(403);

  // Revoked on the Share links page: the viewer's page says so at once, with no reconnect loop.
  await page.goto('/audit/share-links');
  const row = admin.shareLinks.getByRole('row').filter({ hasText: note });
  await expect(row).toContainText('active');
  await row.getByRole('button', { name: /^Revoke link/ }).click();
  await row.getByRole('button', { name: /^Revoke (now|and close)/ }).click();
  await expect(row).toContainText('revoked');
  await expect(viewerPage.getByRole('alert')).toContainText('This read-only link was revoked', { timeout: 5_000 });
  expect(await viewerPage.evaluate(() => fetch('/api/me').then((r) => r.status))).toBe(401);
  await context.close();
});

test('viewers sign in on /login, come back to the page they asked for, and sign out', async ({ browser }, info) => {
  const context = await anonymousContext(browser, 'light');
  const page = await context.newPage();
  const ui = new AccessPage(page);

  // Not signed in: any page sends to /login, remembering where it was going.
  await page.goto('/ensembles/default/znodes/zookeeper');
  await expect(page).toHaveURL(/\/login\?next=%2Fensembles%2Fdefault%2Fznodes%2Fzookeeper$/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await settle(page);
  await page.screenshot({ path: docsShot('login-light.png', (n) => info.outputPath(n)) });

  await ui.signInWithToken('not-a-token');
  await expect(page.getByRole('alert')).toContainText('This token is not valid for this console.');
  await ui.signInWithToken(E2E_VIEWER_TOKEN);
  await expect(page).toHaveURL(/\/ensembles\/default\/znodes\/zookeeper$/);
  await expect(ui.user).toContainText('viewer');
  await expect(new TreePage(page).children).toContainText('config');
  await expect(ui.editData).toHaveCount(0);
  await expect(ui.auditNav).toHaveCount(0);

  // Signing out in one tab ends the session everywhere: the other tab says so instead of retrying.
  const other = await context.newPage();
  await other.goto('/ensembles/default/znodes/');
  await expect(new AccessPage(other).user).toContainText('viewer');
  // Its socket is open (the children come over it): a tab still connecting when the session ends
  // is refused at its upgrade and sent to /login, which is right, but not what this test shows.
  await expect(new TreePage(other).children).toContainText('zookeeper');
  await ui.user.click();
  await ui.button('Sign out').click();
  await expect(page).toHaveURL(/\/login(\?next=|$)/);
  await expect(other.getByRole('alert')).toContainText('You were signed out', { timeout: 5_000 });
  await other.getByRole('button', { name: 'Sign in again' }).click();
  await expect(other).toHaveURL(/\/login\?next=/);
  await context.close();
});

test('the audit trail lists what happened, newest first, filterable', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  const node = `${root}/audited`;
  await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: 'v0' }]);
  const tree = new TreePage(page);
  const ui = new AccessPage(page);
  await useTheme(page, 'dark');
  await tree.open('default', node);
  await ui.editData.click();
  await ui.editor.fill('v1');
  await ui.button('Save').click();
  await expect(tree.data).toContainText('v1');

  await ui.auditNav.click();
  await expect(page).toHaveURL(/\/audit$/);
  const rows = ui.auditTable.getByRole('row');
  const mine = rows.filter({ has: page.getByRole('link', { name: node, exact: true }) });
  await expect(mine.first()).toContainText('set data');
  await expect(mine.first()).toContainText('ok');
  await expect(mine.first()).toContainText(/v0 · 2 B · [0-9a-f]{7}\s*→\s*v1 · 2 B · [0-9a-f]{7}/);
  // Earlier specs' refusals and conflicts are there too, in words and colors.
  await expect(rows.filter({ hasText: 'BAD_VERSION' }).first()).toContainText('failed');

  // The trail outlives e2e runs (the server's data dir): this run's root names this entry alone.
  await ui.auditFilter.fill(`${root.split('/').pop()} set`);
  await expect(rows.filter({ hasText: 'set data' })).toHaveCount(1);
  await ui.auditFilter.fill('');
  await ui.auditFilter.blur();
  await settle(page);
  await page.screenshot({ path: docsShot('audit-dark.png', (n) => info.outputPath(n)) });

  // The path links back to the znode.
  await mine.first().getByRole('link', { name: node, exact: true }).click();
  await expect(page).toHaveURL(/\/znodes\/e2e\//);
});

test('an import shows its dry-run diff first and writes nothing until applied', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [
    { op: 'create', path: `${root}/src/a`, data: 'alpha' },
    { op: 'create', path: `${root}/src/b`, data: 'beta' },
    { op: 'create', path: `${root}/dst/a`, data: 'changed here' },
  ]);
  const tree = new TreePage(page);
  const ui = new AccessPage(page);
  await tree.open('default', `${root}/dst`);
  // The export an operator would have downloaded, fetched as this admin.
  const doc = await page.evaluate((p) => fetch(`/api/ensembles/default/export${p}`).then((r) => r.text()), `${root}/src`);

  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await ui.dialog.locator('input[type=file]').setInputFiles({ name: 'src-export.json', mimeType: 'application/json', buffer: Buffer.from(doc) });
  await expect(ui.dialog).toContainText('3 nodes from');
  await ui.button('Preview changes').click();
  const plan = ui.dialog.getByRole('region', { name: 'Import plan' });
  await expect(plan.getByRole('tab', { name: /Create/ })).toContainText('1');
  await expect(plan.getByRole('tab', { name: /Conflicts/ })).toContainText('1');
  await expect(plan.getByRole('tab', { name: /Unchanged/ })).toContainText('1');
  // Conflicts come first: they are what needs a decision.
  await expect(plan.getByRole('listitem')).toContainText(`${root}/dst/a`);
  await expect(plan.getByRole('listitem')).toContainText('data differs');
  await plan.getByRole('tab', { name: /Create/ }).click();
  await expect(plan.getByRole('listitem')).toContainText(`${root}/dst/b`);
  await settle(page);
  await page.screenshot({ path: info.outputPath('import-plan.png') });
  // The dry run wrote nothing.
  expect(await get(`${root}/dst/b`)).toBeNull();

  await ui.button('Apply 1 change').click();
  await expect(ui.dialog).toContainText(/done|finished|complete/i, { timeout: 10_000 });
  expect(await get(`${root}/dst/b`)).toMatchObject({ data: 'beta', version: 0 });
  // A conflict is left alone without "overwrite".
  expect(await get(`${root}/dst/a`)).toMatchObject({ data: 'changed here', version: 0 });
});

/** Security screenshots (issue 10): into /tmp/shots-security/, outside the repository. */
const securityShot = (name: string) => join(process.env.KEEPER_SECURITY_SHOTS ?? '/tmp/shots-security', name);

test('the sign-in page offers only the token when no users are configured, and a long next path stays in the card', async ({ browser }) => {
  const longPath = `/ensembles/default/znodes/${'services/payments/'.repeat(8)}database.json`;
  // While the page asks which ways this server offers, it offers none: a Password tab shown first
  // and taken away when the answer came offered what this server does not have.
  {
    const context = await anonymousContext(browser, 'dark');
    const page = await context.newPage();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/sign-in-methods', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/login');
    await expect(page.getByText('Asking Keeper how to sign in…')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Password' })).toHaveCount(0);
    await expect(page.getByLabel('Token', { exact: true })).toHaveCount(0);
    release();
    await expect(page.getByLabel('Token', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Password' })).toHaveCount(0);
    await expect(page.getByText('Asking Keeper how to sign in…')).toHaveCount(0);
    await context.close();
  }
  for (const { theme, width } of checkedVariants([
    { theme: 'dark', width: 1440 },
    { theme: 'light', width: 1440, screenshotOnly: true },
    { theme: 'dark', width: 390 },
  ] as const)) {
    const context = await anonymousContext(browser, theme);
    const page = await context.newPage();
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto(`/login?next=${encodeURIComponent(longPath)}`);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    // Tokens only on this server (no users): no Password tab, and the token field is what is shown.
    await expect(page.getByLabel('Token', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Password' })).toHaveCount(0);
    await expect(page.getByLabel('User name')).toHaveCount(0);
    // The next path is cut inside the card, not drawn past its edge; the whole path is in its title.
    const card = (await page.locator('.auth-card').boundingBox())!;
    const next = page.locator('.auth-next');
    await expect(next).toHaveAttribute('title', longPath);
    const box = (await next.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    await settle(page);
    await page.screenshot({ path: securityShot(`login-${theme}-${width}.png`) });
    await context.close();
  }
});

/** Another site (localhost is a different site from 127.0.0.1) whose page navigates to `target`. */
async function attackerSite(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<!doctype html><title>cat pictures</title><script>location.href = ${JSON.stringify(target)};</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://localhost:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test("another site's page cannot switch a signed-in browser to a share link or a viewer token without a click", async ({ page, browser, baseURL }) => {
  // The attacker's share link (an admin made it; the attacker only has its URL).
  await new TreePage(page).open('default', '/zookeeper');
  const shareUrl = await new AccessPage(page).createShareLink('1 h', `login CSRF ${Date.now()}`);

  for (const { theme, width } of checkedVariants([
    { theme: 'dark', width: 1440 },
    { theme: 'light', width: 1440, screenshotOnly: true },
    { theme: 'light', width: 390 },
  ] as const)) {
    const context = await anonymousContext(browser, theme);
    const victim = await context.newPage();
    await victim.emulateMedia({ colorScheme: theme });
    await victim.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await victim.goto('/login');
    await new AccessPage(victim).signInWithToken(E2E_ADMIN_TOKEN);
    await expect(new AccessPage(victim).user).toContainText('admin');

    for (const target of [shareUrl, `${baseURL}/ensembles/default/znodes/zookeeper?token=${E2E_VIEWER_TOKEN}`]) {
      const attacker = await attackerSite(target);
      await victim.goto(attacker.url);
      await expect(victim.getByRole('heading', { name: 'Switch identity?' })).toBeVisible();
      await expect(victim.locator('main')).toContainText('You are signed in as admin-token');
      // Still the admin: the visit alone replaced nothing.
      expect(await victim.evaluate(() => fetch('/api/me').then((r) => r.json()))).toMatchObject({ name: 'admin-token', role: 'admin' });
      if (target === shareUrl) await victim.screenshot({ path: securityShot(`switch-identity-${theme}-${width}.png`) });
      await attacker.close();
    }
    // The user's own choice: staying keeps the admin; continuing (a same-origin POST) switches.
    await victim.getByRole('link', { name: /^Stay signed in as admin-token/ }).click();
    expect(await victim.evaluate(() => fetch('/api/me').then((r) => r.json()))).toMatchObject({ name: 'admin-token' });
    const again = await attackerSite(shareUrl);
    await victim.goto(again.url);
    await victim.getByRole('button', { name: /^Continue as share link/ }).click();
    await expect(victim).toHaveURL(/\/znodes\/zookeeper$/);
    expect(await victim.evaluate(() => fetch('/api/me').then((r) => r.json()))).toMatchObject({ role: 'viewer', via: 'share' });
    await again.close();
    await context.close();
  }
});
