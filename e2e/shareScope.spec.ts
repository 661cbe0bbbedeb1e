/**
 * A share link reaches what its creator chose, and both sides are told: the dialog offers the
 * znode or an ancestor as the reach and the ensemble views as an opt-in, and says what the holder
 * will and will not see; the holder's frame says "Shared view: … and below, read-only", its left
 * nav offers only the tree, its tree starts at the scope, and the server refuses the rest.
 * Screenshots (dark, light, 390 px) go to /tmp/shots-share/.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { kazoo } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { TreePage } from './support/treePage.js';
import { AccessPage, anonymousContext } from './support/accessPage.js';
import { checkedVariants, settle } from './support/screenshots.js';

const SHOTS = '/tmp/shots-share';

test.use({ viewport: { width: 1440, height: 900 } });

async function holderPage(browser: Browser, url: string, theme: 'dark' | 'light', width = 1440): Promise<Page> {
  const context = await anonymousContext(browser, theme);
  const page = await context.newPage();
  await page.setViewportSize({ width, height: width < 500 ? 844 : 900 });
  await page.goto(url);
  return page;
}

test('the share dialog lets the creator choose the reach, and the holder sees it and nothing more', async ({ page, browser }, info) => {
  const root = testRoot(info.testId, info.retry);
  const node = `${root}/app/db/database.json`;
  await kazoo(E2E_HOSTS, [
    { op: 'create', path: node, data: JSON.stringify({ primary: 'db-1:5432', replicas: 2 }) },
    { op: 'create', path: `${root}/app/db/schema`, data: 'v42' },
    { op: 'create', path: `${root}/app/secrets`, data: 'not for the holder' },
  ]);
  await page.addInitScript(() => localStorage.setItem('keeper.theme', 'dark'));
  const tree = new TreePage(page);
  const admin = new AccessPage(page);
  await tree.open('default', node);
  await admin.shareButton.click();

  // The reach: the znode itself by default, or an ancestor; the ensemble views are opt-in.
  const reach = admin.dialog.getByRole('radiogroup', { name: 'Reaches' });
  await expect(reach.getByRole('radio')).toHaveCount(node.split('/').length);
  await expect(reach.getByRole('radio', { name: `${node} and below` })).toBeChecked();
  const views = admin.dialog.getByRole('checkbox', { name: /Also the ensemble views/ });
  await expect(views).not.toBeChecked();
  await reach.getByRole('radio', { name: `${root}/app/db and below` }).check();
  const summary = admin.dialog.getByLabel('What the holder will see');
  await expect(summary).toContainText(`Will see: ${root}/app/db and below of default, read-only.`);
  await expect(summary).toContainText('Will not see: the rest of the tree, members, sessions, watches, other ensembles');
  await settle(page);
  await page.screenshot({ path: `${SHOTS}/dialog-dark.png` });
  await admin.dialog.getByRole('radio', { name: '1 h' }).click();
  await admin.button('Create link').click();
  const url = await admin.dialog.getByRole('textbox', { name: 'Share link', exact: true }).inputValue();
  await expect(admin.dialog).toContainText(`${root}/app/db and below of default, read-only`);
  await admin.button('Done').click();

  // The admin's list says what each link reaches.
  await page.goto('/audit/share-links');
  await expect(admin.shareLinks.getByRole('row').filter({ hasText: node }).first()).toContainText(`reaches ${root}/app/db and below of default, read-only`);

  // The holder: told the scope, offered only the tree, which starts at the scope.
  for (const { theme, width } of checkedVariants([
    { theme: 'dark', width: 1440 },
    { theme: 'light', width: 1440, screenshotOnly: true },
    { theme: 'light', width: 390 },
  ] as const)) {
    const holder = await holderPage(browser, url, theme, width);
    await expect(holder).toHaveURL(/\/database\.json$/);
    await expect(holder.getByRole('status', { name: 'Shared view' })).toHaveText(`Shared view: ${root}/app/db and below, read-only`);
    await expect(holder.getByText('"primary": "db-1:5432"')).toBeVisible();
    if (width > 500) {
      const nav = holder.getByRole('navigation', { name: 'default views' });
      await expect(nav.getByRole('link')).toHaveText(['Tree']);
      const treeNav = holder.getByRole('tree');
      await expect(treeNav.getByRole('treeitem').first()).toContainText(`${root}/app/db`);
      await expect(treeNav.getByRole('treeitem', { name: /secrets/ })).toHaveCount(0);
    }
    await settle(holder);
    await holder.screenshot({ path: `${SHOTS}/holder-${theme}-${width}.png` });
    // The server refuses what is outside, whatever the page asks for.
    const answers = await holder.evaluate(async (r) => {
      const get = async (p: string) => {
        const res = await fetch(p);
        return `${res.status} ${((await res.json()) as { error?: { code: string } }).error?.code ?? 'ok'}`;
      };
      return [
        await get(`/api/ensembles/default/znodes${r}/app/db/schema`),
        await get(`/api/ensembles/default/znodes${r}/app/secrets`),
        await get('/api/ensembles/default/sessions'),
        await get('/api/ensembles/default/members'),
      ];
    }, root);
    expect(answers).toEqual(['200 ok', '403 OUT_OF_SCOPE', '403 OUT_OF_SCOPE', '403 OUT_OF_SCOPE']);
    await holder.context().close();
  }
});
