/**
 * The walking skeleton end to end: a deep link opens a znode, another client (kazoo) changes
 * it and the page follows live, then deletes it and the page says so. No reloads anywhere.
 */
import { expect, test } from '@playwright/test';
import { kazoo } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { TreePage } from './support/treePage.js';

test('a deep link opens a znode that then follows another client live', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  const node = `${root}/service-config`;
  await kazoo(E2E_HOSTS, [
    { op: 'create', path: node, data: '{"replicas":3,"region":"eu-west"}' },
    { op: 'create', path: `${node}/lock-0000000002` },
    { op: 'create', path: `${node}/lock-0000000010` },
  ]);

  const tree = new TreePage(page);
  await tree.open('default', node);
  await expect(tree.sessionBadge).toHaveAttribute('aria-label', /Console session: connected/);
  // JSON is recognised and pretty-printed.
  await expect(tree.data).toContainText('"replicas": 3');
  await expect(tree.stat).toContainText('version');
  await expect(tree.children).toContainText('lock-0000000002');
  // The ancestors of a deep link are expanded in the tree.
  await expect(page.getByRole('treeitem', { name: 'service-config' })).toBeVisible();

  // Another client changes the data: the page shows it within a second or two, untouched.
  await kazoo(E2E_HOSTS, [{ op: 'set', path: node, data: '{"replicas":5,"region":"eu-west"}' }]);
  await expect(tree.data).toContainText('"replicas": 5', { timeout: 3_000 });
  await expect(tree.watchEvents.getByRole('listitem').filter({ hasText: node }).first()).toContainText('data');

  // A new child appears in the list.
  await kazoo(E2E_HOSTS, [{ op: 'create', path: `${node}/lock-0000000011` }]);
  await expect(tree.children).toContainText('lock-0000000011', { timeout: 3_000 });

  // Deleted by another client: the page says so, and the tree drops it.
  await kazoo(E2E_HOSTS, [{ op: 'delete', path: node, recursive: true }]);
  await expect(tree.deletedBanner).toBeVisible({ timeout: 3_000 });
  await expect(page.getByRole('treeitem', { name: 'service-config' })).toHaveCount(0);

  // Re-created: it comes back live.
  await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: 'plain text again' }]);
  await expect(tree.data).toContainText('plain text again', { timeout: 3_000 });
  await expect(tree.deletedBanner).toBeHidden();
});

test('binary data shows as hex, large data says it is truncated', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [{ op: 'create', path: `${root}/large`, data: 'x'.repeat(100_000) }]);
  const tree = new TreePage(page);
  await tree.open('default', `${root}/large`);
  await expect(tree.data).toContainText(/64 KiB/);
  await expect(tree.data).toContainText(/97\.7 KiB|100,000|98 KiB/);
});

test('a list of 22,000 children, sent in pages, shows whole: counted, filtered, followed live', async ({ page }, info) => {
  test.setTimeout(120_000);
  const root = testRoot(info.testId, info.retry);
  // root/shard-00/item-0000 … item-21999: about 270 KB of names, more than one 256 KiB page.
  await kazoo(E2E_HOSTS, [{ op: 'grow', path: root, shards: 1, perShard: 22_000 }]);
  const node = `${root}/shard-00`;
  let pages = 0;
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      if (typeof payload === 'string' && payload.includes('"mode":"page"')) pages++;
    }),
  );
  const tree = new TreePage(page);
  await tree.open('default', node);
  await expect(page.locator('.children__summary')).toHaveText('22,000 children', { timeout: 30_000 });
  expect(pages).toBeGreaterThanOrEqual(2);
  const filter = page.getByRole('searchbox', { name: 'Filter children' });
  await filter.fill('item-21999');
  await expect(tree.children.getByRole('listitem')).toHaveText(['item-21999']);
  await filter.fill('');
  // Live after the pages: a new child arrives as a diff on the whole list.
  await kazoo(E2E_HOSTS, [{ op: 'create', path: `${node}/item-22000` }]);
  await expect(page.locator('.children__summary')).toHaveText('22,001 children', { timeout: 5_000 });
});
