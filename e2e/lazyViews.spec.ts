/**
 * Views load as chunks of their own (issue 23, item 8): a deep link to the tree loads no other
 * view's code, and a deep link to a view whose code is slow to come shows the frame at once with
 * a quiet line where the view goes; the frame does not move when the view arrives.
 */
import { expect, test, type Page } from '@playwright/test';
import { docsShot, settle } from './support/screenshots.js';

/** The other views' chunks, by the name the build gives them. */
const OTHER_VIEWS = ['LocksView', 'UpgradesView', 'EnsembleView', 'SessionsView', 'WatchesView', 'ResizeView', 'AuditPage', 'ReplicasPage', 'ShareLinksPage'];

function scriptsAskedFor(page: Page): string[] {
  const asked: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/assets/') && path.endsWith('.js')) asked.push(path.slice('/assets/'.length));
  });
  return asked;
}

test('a deep link to the tree loads the tree and no other view', async ({ page }) => {
  const asked = scriptsAskedFor(page);
  await page.goto('/ensembles/default/znodes/zookeeper');
  await expect(page.getByRole('table', { name: 'Znode stat' })).toBeVisible();
  expect(asked.some((file) => file.startsWith('TreeExplorer-'))).toBe(true);
  expect(asked.filter((file) => OTHER_VIEWS.some((view) => file.startsWith(`${view}-`)))).toEqual([]);
});

test('a view whose code is slow to come: the frame at once, a quiet line in its place, then the view where the line was', async ({ page }, info) => {
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));
  await page.route(/\/assets\/LocksView-[^/]*\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  await page.goto('/ensembles/default/locks');
  const nav = page.getByRole('navigation', { name: 'default views' });
  const waiting = page.getByRole('status').filter({ hasText: 'Loading the view…' });
  await expect(nav).toBeVisible();
  await expect(waiting).toBeVisible();
  await settle(page);
  const navBefore = await nav.boundingBox();
  const lineBox = await waiting.boundingBox();
  await page.screenshot({ path: docsShot('view-loading-light.png', (n) => info.outputPath(n)) });

  release();
  const heading = page.getByRole('main').getByRole('heading', { name: 'Locks', level: 1 });
  await expect(heading).toBeVisible();
  await expect(waiting).toHaveCount(0);
  await settle(page);
  // The frame stays where it was; the view starts where the line was (the content column).
  expect(await nav.boundingBox()).toEqual(navBefore);
  const headingBox = await heading.boundingBox();
  expect(lineBox).not.toBeNull();
  expect(headingBox).not.toBeNull();
  expect(Math.abs(headingBox!.x - lineBox!.x)).toBeLessThanOrEqual(24);
  await page.screenshot({ path: docsShot('view-deep-link-light.png', (n) => info.outputPath(n)) });
});
