/**
 * An ACL that would lock the console out of a node (ip:10.9.9.9: the sandbox's members see the
 * console at 127.0.0.1) is not applied on Save: the dialog shows the server's reason and applies
 * it only once the path is typed back. Then the node is unreadable to the console, and still
 * deletable through Keeper. Screenshots of the warning in both themes and at a phone's width go to
 * KEEPER_SHOTS_DIR when it is set; the light and phone ones, which check nothing the dark one does
 * not, are taken only with KEEPER_DOCS_SCREENSHOTS=1.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { kazoo } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { TreePage } from './support/treePage.js';
import { useTheme } from './support/accessPage.js';
import { checkedVariants, settle } from './support/screenshots.js';

const SHOTS = process.env.KEEPER_SHOTS_DIR;

async function openLockoutWarning(page: Page, node: string): Promise<void> {
  await new TreePage(page).open('default', node);
  await page.getByRole('button', { name: 'Edit ACL', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('combobox', { name: 'Scheme of entry 1' }).selectOption('ip');
  await dialog.getByRole('textbox', { name: 'Id of entry 1' }).fill('10.9.9.9');
  await dialog.getByRole('button', { name: 'Save ACL' }).click();
  await expect(dialog.getByRole('alert')).toContainText('the console loses its own access to this node');
  await expect(dialog.getByRole('alert')).toContainText('address 127.0.0.1');
}

const shots = [
  { name: 'acl-lockout-dark.png', theme: 'dark' as const, width: 1440, height: 900 },
  { name: 'acl-lockout-light.png', theme: 'light' as const, width: 1440, height: 900, screenshotOnly: true },
  // The dialog's checks at a phone's width are the same ones: no layout is measured here.
  { name: 'acl-lockout-phone-dark.png', theme: 'dark' as const, width: 390, height: 844, screenshotOnly: true },
];

for (const shot of checkedVariants(shots)) {
  test(`the lock-out warning (${shot.name})`, async ({ page }, info) => {
    const node = `${testRoot(info.testId, info.retry)}/fenced`;
    await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: 'x' }]);
    await page.setViewportSize({ width: shot.width, height: shot.height });
    await useTheme(page, shot.theme);
    await openLockoutWarning(page, node);
    const apply = page.getByRole('dialog').getByRole('button', { name: 'Apply anyway' });
    await expect(apply).toBeDisabled();
    await page.getByRole('dialog').getByRole('textbox', { name: 'Type the path to confirm' }).fill(`${node}x`);
    await expect(apply).toBeDisabled();
    await settle(page);
    await page.screenshot({ path: SHOTS ? join(SHOTS, shot.name) : info.outputPath(shot.name), fullPage: shot.width < 600 });
    // Nothing was applied: the console still reads the node.
    expect((await page.request.get(`/api/ensembles/default/znodes${node}`)).status()).toBe(200);
  });
}

test('typed confirmation applies it; the node is then unreadable, and still deletable through Keeper', async ({ page }, info) => {
  const node = `${testRoot(info.testId, info.retry)}/fenced`;
  await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: 'x' }]);
  await openLockoutWarning(page, node);
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Type the path to confirm' }).fill(node);
  await dialog.getByRole('button', { name: 'Apply anyway' }).click();
  await expect(dialog).toBeHidden();
  expect((await page.request.get(`/api/ensembles/default/znodes${node}`)).status()).toBe(403);
  const deleted = await page.request.delete(`/api/ensembles/default/znodes${node}?version=0`);
  expect(deleted.status()).toBe(200);
  expect((await page.request.get(`/api/ensembles/default/znodes${node}`)).status()).toBe(404);
});

test('an import the dry run finds problems in is shown as refused, and cannot be applied', async ({ page }, info) => {
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [{ op: 'create', path: root, data: '' }]);
  const stat = { version: 0, aversion: 0, cversion: 0, ctime: 0, mtime: 0, dataLength: 0, numChildren: 0, ephemeral: false };
  const world = [{ scheme: 'world', id: 'anyone', permissions: 31 }];
  const mib = Buffer.alloc(1_048_576, 7).toString('base64');
  const doc = {
    format: 'keeper-export',
    version: 1,
    ensemble: 'elsewhere',
    root: '/big',
    exportedAt: Date.now(),
    nodes: [
      { rel: '', data: '', encoding: 'utf8', acl: world, stat },
      ...['a', 'b', 'c'].map((rel) => ({ rel, data: mib, encoding: 'base64', acl: world, stat })),
    ],
  };
  await page.setViewportSize({ width: 1440, height: 900 });
  await useTheme(page, 'dark');
  await new TreePage(page).open('default', root);
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog
    .locator('input[type=file]')
    .setInputFiles({ name: 'big.keeper-export.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await dialog.getByRole('button', { name: 'Preview changes' }).click();
  await expect(dialog.getByRole('alert')).toContainText('3 nodes would fail');
  await expect(dialog.getByRole('tab', { name: /Refused/ })).toContainText('3');
  await expect(dialog.getByRole('button', { name: 'Refused: fix the file' })).toBeDisabled();
  await settle(page);
  await page.screenshot({ path: SHOTS ? join(SHOTS, 'import-refused-dark.png') : info.outputPath('import-refused-dark.png') });
});
