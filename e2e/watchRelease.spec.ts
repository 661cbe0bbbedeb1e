/**
 * A tab that stays open for days must not collect watches: every znode it visits by in-page
 * navigation is watched while shown and let go (after the socket's short release grace) once the
 * tab has moved on, whether the znode exists or not. The members themselves are asked (wchp and
 * mntr on every member), not Keeper.
 */
import { expect, test, type Page } from '@playwright/test';
import { kazoo, type KazooOp } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { totalWatchCount, watchedPathsUnder } from './support/memberWatches.js';
import { TreePage } from './support/treePage.js';

const EXISTING = 30;
const MISSING = 30;

/** In-page navigation, as the back and forward buttons do it: the router follows popstate. */
async function goInPage(page: Page, url: string): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, url);
}

const urlOf = (path: string) => `/ensembles/default/znodes${path.split('/').map(encodeURIComponent).join('/')}`;

test('a tab that visits 60 znodes and goes back holds no more watches than before', async ({ page }, info) => {
  test.setTimeout(180_000);
  const root = testRoot(info.testId, info.retry);
  const names = Array.from({ length: EXISTING }, (_, i) => `node-${String(i).padStart(3, '0')}`);
  await kazoo(E2E_HOSTS, [{ op: 'create', path: root }, ...names.map((name): KazooOp => ({ op: 'create', path: `${root}/${name}`, data: name }))]);
  const visits = [...names.map((n) => `${root}/${n}`), ...Array.from({ length: MISSING }, (_, i) => `${root}/missing-${i}`)];

  const tree = new TreePage(page);
  await tree.open('default', root);
  await expect(tree.children).toContainText('node-000');
  // The first page's own watches (its znode, shown with its children) and the members' total.
  await expect.poll(() => watchedPathsUnder(root)).toEqual([root]);
  const baselineTotal = await totalWatchCount();

  for (const [i, path] of visits.entries()) {
    await goInPage(page, urlOf(path));
    await page.waitForTimeout(100);
    // Proof that a visit is watched on the members while it is shown, existing and missing alike.
    if (i === EXISTING - 1 || i === visits.length - 1) await expect.poll(() => watchedPathsUnder(root)).toContain(path);
  }
  await expect(page.getByRole('region', { name: `Znode ${visits.at(-1)}`, exact: true })).toBeVisible();
  await expect(page.getByText('No znode at this path')).toBeVisible();

  // Back to the first page by its breadcrumb (Chromium keeps only 50 history entries), and the tab stays open.
  await page
    .getByRole('navigation', { name: 'Breadcrumb' })
    .getByRole('link', { name: root.split('/').at(-1), exact: true })
    .click();
  await expect(page.getByRole('region', { name: `Znode ${root}`, exact: true })).toBeVisible();
  await expect(tree.children).toContainText('node-000');

  // Every member lets go of what the tab no longer shows.
  await expect.poll(() => watchedPathsUnder(root), { timeout: 15_000 }).toEqual([root]);
  await expect.poll(() => totalWatchCount(), { timeout: 15_000 }).toBeLessThanOrEqual(baselineTotal);
  // And the first page is still live: a change made by another client shows.
  await kazoo(E2E_HOSTS, [{ op: 'create', path: `${root}/node-late` }]);
  await expect(page.getByRole('treeitem', { name: 'node-late', exact: true })).toBeVisible({ timeout: 3_000 });
  await expect(page.getByText(`${EXISTING + 1} children`)).toBeVisible();
});
