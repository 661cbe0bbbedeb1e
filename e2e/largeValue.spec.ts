/**
 * A value over the live view's 64 KiB opens whole in the editor: read from GET .../data/<path>
 * (the stored bytes), not by exporting the subtree, so a node with more descendants than an
 * export takes (10,000) still opens, and saving writes exactly the edited value.
 */
import { expect, test } from '@playwright/test';
import { kazoo, kazooGet } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { TreePage } from './support/treePage.js';
import { AccessPage } from './support/accessPage.js';

test('the editor opens an 80 KB value of a node with 10,005 descendants and saves it', async ({ page }, info) => {
  test.setTimeout(120_000);
  const node = `${testRoot(info.testId, info.retry)}/catalog`;
  // Text, so the editor shows it as typed; the marker at the end is past what the live view carries.
  const value = `${'x'.repeat(79_990)}END-MARKER`;
  await kazoo(E2E_HOSTS, [
    { op: 'grow', path: node, shards: 2, perShard: 5_001 },
    { op: 'set', path: node, data: value },
  ]);

  const requests: string[] = [];
  page.on('request', (request) => requests.push(new URL(request.url()).pathname));
  const tree = new TreePage(page);
  const ui = new AccessPage(page);
  await tree.open('default', node);
  await expect(tree.data).toContainText(/64 KiB/);

  await ui.editData.click();
  await expect(ui.editor).toBeVisible({ timeout: 15_000 });
  await expect.poll(async () => (await ui.editor.inputValue()).length).toBe(value.length);
  expect((await ui.editor.inputValue()).endsWith('END-MARKER')).toBe(true);
  expect(requests.filter((p) => p.includes('/data/'))).toHaveLength(1);
  expect(requests.filter((p) => p.includes('/export/'))).toHaveLength(0);

  const edited = `${value}+1`;
  await ui.editor.fill(edited);
  await ui.button('Save').click();
  await expect(ui.editor).toBeHidden();
  await expect.poll(async () => (await kazooGet(E2E_HOSTS, node))?.version).toBe(2);
  expect((await kazooGet(E2E_HOSTS, node))?.data).toBe(edited);
});
