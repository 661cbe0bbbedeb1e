/**
 * Issue 22 item 5 in Chromium: a Keeper restart, even a SIGKILL, does not sign a browser out. The
 * spec runs a Keeper of its own (the webServer's cannot be restarted) against the e2e sandbox, on a
 * fixed port so the open page's origin stays the same, and kills and restarts it under the page.
 * When a session must end (its token was rotated meanwhile), the sign-in page says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { kazoo } from '../scripts/lib/kazoo/index.js';
import { launchKeeper, type KeeperProcess } from '../scripts/lib/keeperProcess.js';
import { KEEPER_PORTS } from '../scripts/sandbox/portOffsets.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { AccessPage, anonymousContext } from './support/accessPage.js';
import { TreePage } from './support/treePage.js';
import { docsShot, settle } from './support/screenshots.js';

const ADMIN = 'restart-spec-admin-token-0123456789';

test('a Keeper killed and restarted keeps the browser signed in; a rotated token ends it and the sign-in page says why', async ({ browser }, info) => {
  test.setTimeout(180_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'keeper-e2e-restart-'));
  const args = ['--zk', E2E_HOSTS, '--name', 'restart', '--port', String(KEEPER_PORTS.e2eRestart), '--data-dir', dataDir];
  let keeper: KeeperProcess | null = null;
  const context = await anonymousContext(browser, 'dark');
  try {
    keeper = await launchKeeper(args, { KEEPER_ADMIN_TOKEN: ADMIN });
    const root = testRoot(info.testId, info.retry);
    const node = `${root}/settings`;
    await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: 'before' }]);

    const page = await context.newPage();
    const ui = new AccessPage(page);
    const tree = new TreePage(page);
    await page.goto(`${keeper.url}/ensembles/restart/znodes${node}`);
    await expect(page).toHaveURL(/\/login\?next=/);
    await ui.signInWithToken(ADMIN);
    await expect(tree.data).toContainText('before');
    await expect(ui.user).toContainText('admin-token');

    // SIGKILL: no graceful close, nothing flushed on the way out. The page notices, then reconnects
    // to the new process with its cookie and follows live again, signed in as before.
    await keeper.stop('SIGKILL');
    await expect(page.getByText(/Lost the Keeper server at/)).toBeVisible({ timeout: 10_000 });
    keeper = await launchKeeper(args, { KEEPER_ADMIN_TOKEN: ADMIN });
    await kazoo(E2E_HOSTS, [{ op: 'set', path: node, data: 'after the restart' }]);
    await expect(tree.data).toContainText('after the restart', { timeout: 30_000 });
    await expect(page).toHaveURL(new RegExp(`/ensembles/restart/znodes${node}$`));
    await expect(ui.user).toContainText('admin-token');
    // A reload too: the cookie is still a session, and a write (CSRF token and all) goes through.
    await page.reload();
    await expect(tree.data).toContainText('after the restart');
    await ui.editData.click();
    await ui.editor.fill('written after the restart');
    await ui.button('Save').click();
    await expect(ui.editor).toBeHidden();
    await expect(tree.data).toContainText('written after the restart');

    // Restarted with a rotated admin token: that session must end, and the page says why.
    await keeper.stop('SIGTERM');
    keeper = await launchKeeper(args, { KEEPER_ADMIN_TOKEN: `${ADMIN}-rotated` });
    await expect(page).toHaveURL(/\/login/, { timeout: 30_000 });
    const note = page.getByRole('status').filter({ hasText: 'Your sign-in was ended' });
    await expect(note).toContainText('The admin token was changed since this browser signed in.');
    await settle(page);
    await page.screenshot({ path: docsShot('sign-in-ended-dark.png', (n) => info.outputPath(n)) });
  } finally {
    await context.close();
    await keeper?.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
