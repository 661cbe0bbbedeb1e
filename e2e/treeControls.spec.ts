/**
 * Controls that can work, and answers that help (issue 9, B7–B10; issue 10, item 14), against
 * the real sandbox ensemble with nodes made by kazoo: ZooKeeper's own /zookeeper/config offers
 * no write and says why; an ephemeral node offers no child and links its owner's session; a
 * node whose ACL the console lacks shows its stat and what it needs, with no endless spinner;
 * lock contenders list holder first; the root's epoch-0 times read "—"; a name with a bidi
 * override is shown escaped. Screenshots (dark, light, phone) go to KEEPER_SHOTS_DIR.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { holdSessions, kazoo } from '../scripts/lib/kazoo/index.js';
import { TreePage } from './support/treePage.js';
import { useTheme } from './support/accessPage.js';
import { settle } from './support/screenshots.js';

test.use({ viewport: { width: 1440, height: 900 } });

const SHOTS = process.env.KEEPER_SHOTS_DIR ?? null;
async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await settle(page);
  await page.screenshot({ path: join(SHOTS, name) });
}

const actions = (page: Page) => page.getByRole('group', { name: 'Znode actions' });
const statValue = (tree: TreePage, field: string): Locator =>
  tree.stat
    .getByRole('row')
    .filter({ has: tree.page.getByRole('rowheader', { name: field, exact: true }) })
    .getByRole('cell');

test('/zookeeper/config offers no write and says why; the root’s epoch-0 times read "—"', async ({ page }) => {
  const tree = new TreePage(page);
  await tree.open('default', '/zookeeper/config');
  await expect(tree.data).toContainText('server.1=');
  await expect(statValue(tree, 'version')).toHaveText('-1');
  const group = actions(page);
  await expect(group.getByRole('button', { name: 'Export subtree' })).toBeVisible();
  await expect(group.getByRole('note')).toHaveText('read-only: maintained by ZooKeeper');
  await expect(group.getByRole('note')).toHaveAttribute('title', /version -1.*reconfig/);
  for (const name of ['Edit data', 'Create child', 'Delete', 'Import']) await expect(group.getByRole('button', { name, exact: true })).toHaveCount(0);

  // The root: ZooKeeper made it, with 0 as its times.
  await tree.open('default', '/');
  await expect(statValue(tree, 'numChildren')).not.toBeEmpty();
  await expect(statValue(tree, 'ctime')).toHaveText('—');
  await expect(statValue(tree, 'mtime')).toHaveText('—');
  await expect(tree.stat).not.toContainText(/\d+ d ago/);
});

test('an ephemeral node offers no "Create child", says why, and links its owner’s session', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [{ op: 'ensure', path: root }]);
  const held = await holdSessions([{ hosts: E2E_HOSTS, timeout: 10, ephemerals: [`${root}/worker-lease`], ephemeralData: 'held by kazoo' }]);
  const owner = held.ids[0]!;
  try {
    const tree = new TreePage(page);
    await tree.open('default', `${root}/worker-lease`);
    await expect(tree.data).toContainText('held by kazoo');
    const group = actions(page);
    await expect(group.getByRole('button', { name: 'Edit data' })).toBeEnabled();
    await expect(group.getByRole('button', { name: 'Create child' })).toHaveCount(0);
    await expect(group.getByRole('button', { name: 'Import' })).toHaveCount(0);
    await expect(group.getByRole('note')).toHaveText('no children: ephemeral node');
    await expect(group.getByRole('note')).toHaveAttribute('title', /does not allow children under an ephemeral node/);
    const ownerLink = statValue(tree, 'ephemeralOwner').getByRole('link', { name: owner });
    await expect(ownerLink).toHaveAttribute('href', `/ensembles/default/sessions/${owner}`);
    await shot(page, 'ephemeral-light.png');

    // A persistent sibling still offers it: the rule is the node's, not the page's.
    await kazoo(E2E_HOSTS, [{ op: 'create', path: `${root}/plain` }]);
    await tree.open('default', `${root}/plain`);
    await expect(actions(page).getByRole('button', { name: 'Create child' })).toBeVisible();
  } finally {
    await held.release();
  }
});

test('a node the console may not read shows its stat, what it needs, and no endless spinner', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [
    // First, with the open ACL: kazoo's makepath would give the parents the digest ACL too.
    { op: 'ensure', path: root },
    { op: 'create', path: `${root}/vault`, data: 'secret', digest: [{ user: 'alice', password: 'pw-alice', perms: 'rwcda' }] },
    { op: 'create', path: `${root}/vault/inner`, data: 'x', digest: [{ user: 'alice', password: 'pw-alice', perms: 'rwcda' }] },
    { op: 'create', path: `${root}/billing`, data: 'secret', digest: [{ user: 'billing', password: 'pw-billing', perms: 'rwcda' }], world: 'a' },
  ]);
  await useTheme(page, 'dark');
  const tree = new TreePage(page);

  // Digest only: ZooKeeper hides the ACL too, so the page says what is known.
  await tree.open('default', `${root}/vault`);
  const noAccess = page.getByRole('status', { name: 'No read access' });
  await expect(noAccess).toContainText('Keeper may not read this node');
  await expect(statValue(tree, 'numChildren')).toHaveText('1');
  await expect(statValue(tree, 'version')).toHaveText('0');
  await expect(statValue(tree, 'ctime')).toContainText(/ago/);
  const need = page.getByRole('region', { name: 'Access needed' });
  await expect(need).toContainText('ZooKeeper does not reveal this ACL either');
  await expect(need).toContainText('"auth"');
  // The children panel and the tree stop waiting: they say why.
  await expect(page.locator('.children__summary')).toHaveText('no access');
  await expect(
    page
      .getByRole('region', { name: /^Znode \// })
      .getByRole('status')
      .filter({ hasText: 'may not list the children' }),
  ).toBeVisible();
  const vaultItem = page.getByRole('tree').getByRole('treeitem', { name: 'vault', exact: true });
  await expect(vaultItem).toContainText('no access');
  await expect(page.getByRole('tree').locator('[aria-busy="true"]')).toHaveCount(0);
  await expect(page.getByText('loading…')).toHaveCount(0);
  await shot(page, 'unreadable-dark.png');

  // Digest plus world ADMIN: ZooKeeper shows the ACL, so the page names the scheme and id.
  await tree.open('default', `${root}/billing`);
  await expect(need).toContainText('Reading needs one of these ACL entries');
  await expect(need).toContainText(/digest:billing:\S+=/);
  await expect(need).toContainText('"credential": "billing:<password>"');
  await expect(need).not.toContainText('world:anyone');
  await useTheme(page, 'light');
  await page.reload();
  await expect(need).toContainText('digest:');
  await shot(page, 'unreadable-light.png');
});

test('lock contenders list holder first (by sequence suffix), suffixes whole, names with bidi overrides escaped', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  const lock = `${root}/locks/orders`;
  // Curator's protected names: the uuid comes first, so name order is not creation order.
  const uuids = ['f0000000-aaaa-4aaa-8aaa-000000000001', '10000000-bbbb-4bbb-8bbb-000000000002', '80000000-cccc-4ccc-8ccc-000000000003'];
  await kazoo(E2E_HOSTS, [
    { op: 'ensure', path: lock },
    { op: 'create', path: `${root}/abc\u202egpj.exe`, data: 'not a picture' },
  ]);
  const made = await kazoo(
    E2E_HOSTS,
    uuids.map((u) => ({ op: 'create' as const, path: `${lock}/_c_${u}-lock-`, sequence: true })),
  );
  const contenders = made.map((p) => p.slice(lock.length + 1));
  expect(contenders.map((n) => n.slice(-10))).toEqual(['0000000000', '0000000001', '0000000002']);

  await useTheme(page, 'dark');
  const tree = new TreePage(page);
  await tree.open('default', lock);
  const rows = tree.children.getByRole('listitem');
  await expect(rows).toHaveCount(3);
  // In creation order (the holder first), not the uuid's order.
  await expect(rows).toHaveText(contenders);
  const treeNames = page.getByRole('tree').getByRole('treeitem', { name: /-lock-\d{10}$/ });
  await expect(treeNames).toHaveText(contenders);
  // A narrow tree cuts the uuid, never the suffix: the tail is whole inside its row.
  for (const row of await page.getByRole('tree').locator('.tree__row').filter({ hasText: '-lock-' }).all()) {
    const tail = await row.locator('.zname__tail').boundingBox();
    const name = await row.locator('.zname').boundingBox();
    expect(tail && name && tail.x + tail.width <= name.x + name.width + 0.5).toBe(true);
    await expect(row.locator('.zname__tail')).toHaveText(/-lock-\d{10}$/);
  }
  await shot(page, 'lock-order-dark.png');

  // The spoofed name reads as it is, with the override shown, in the list, the tree and the breadcrumb.
  await tree.open('default', root);
  await expect(tree.children).toContainText('abc\\u202Egpj.exe');
  await expect(page.getByRole('tree').getByRole('treeitem', { name: 'abc\\u202Egpj.exe' })).toBeVisible();
  await tree.children.getByRole('link', { name: /abc/ }).click();
  await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText('abc\\u202Egpj.exe');
  await expect(tree.data).toContainText('not a picture');
  await useTheme(page, 'light');
  await page.reload();
  await expect(tree.data).toContainText('not a picture');
  await shot(page, 'bidi-light.png');
});

test.describe('at a phone’s width', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the breadcrumb keeps the node’s name whole, watch events start closed, the drawer lists one member a line', async ({ page }, info) => {
    const root = testRoot(info.testId, info.retry);
    const node = `${root}/platform/config/services/database.json`;
    await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: '{"pool":20}' }]);
    await useTheme(page, 'dark');
    const tree = new TreePage(page);
    await tree.open('default', node);
    await expect(tree.data).toContainText('"pool": 20');
    const current = page.getByRole('navigation', { name: 'Breadcrumb' }).locator('[aria-current="page"]');
    await expect(current).toHaveText('database.json');
    // Whole: not clipped by its box or the screen.
    const whole = await current.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= window.innerWidth);
    expect(whole).toBe(true);
    // Watch events: closed, with its toggle.
    const toggle = tree.watchEvents.getByRole('button', { name: /Watch events/ });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    const panel = await tree.watchEvents.boundingBox();
    expect(panel!.height).toBeLessThan(844 / 8);
    await shot(page, 'phone-breadcrumb-dark.png');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await toggle.click();

    // The drawer: each member address on a line of its own.
    await page.getByRole('button', { name: 'Open navigation' }).click();
    const hint = page.locator('.shell__nav .leftnav__hint');
    await expect(hint).toBeVisible();
    const tops = await hint.locator('span').evaluateAll((spans) => spans.map((s) => s.getBoundingClientRect().top));
    expect(tops.length).toBeGreaterThan(1);
    expect(new Set(tops.map((t) => Math.round(t))).size).toBe(tops.length);
    await shot(page, 'phone-drawer-dark.png');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
