/**
 * Resizing from the sizing view in Chromium (issue 24): `npm start` run for real on a sandbox of its
 * own (reconfigEnabled, Keeper's resize session as the sandbox's super user). An admin opens the
 * resize page from the sizing view, adds the suggested member 4, plans it (the preflight names the
 * member not running yet and the page gives the sandbox's start command, which the test runs as an
 * operator would), starts it, and a viewer on a phone follows it live to the end without a single
 * control (and is refused by the API). Then the admin removes member 4 again: the sandbox stops
 * it, and the ensemble view shows 3 members and the timeline says where Keeper now connects.
 * With KEEPER_DOCS_SCREENSHOTS=1 it grows to 5 (two steps, for a picture of a run under way) and
 * saves docs/screenshots/resize-*.png in both themes and at a phone's width.
 *
 * Its own sandbox and Keeper (PORT_OFFSETS.resizeE2e, KEEPER_PORTS.e2eResize): a resize changes
 * the ensemble every other spec of a lane relies on.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { E2E_ADMIN_TOKEN, E2E_VIEWER_TOKEN } from '../playwright.config.js';
import { launchKeeper, type KeeperProcess } from '../scripts/lib/keeperProcess.js';
import { runDrill } from '../scripts/sandbox/controlClient.js';
import { KEEPER_PORTS, PORT_OFFSETS } from '../scripts/sandbox/portOffsets.js';
import { useTheme } from './support/accessPage.js';
import { ResizePage } from './support/resizePage.js';
import { DOCS_SCREENSHOTS, docsShot, settle } from './support/screenshots.js';

const KEEPER_URL = `http://127.0.0.1:${KEEPER_PORTS.e2eResize}`;
const OFFSET = PORT_OFFSETS.resizeE2e;
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
/** Members to add: one step for the test, two for the pictures of a run under way. */
const ADDED = DOCS_SCREENSHOTS ? [4, 5] : [4];
const lineOf = (id: number) => `server.${id}=127.0.0.1:${2880 + OFFSET + id}:${3880 + OFFSET + id}:participant;127.0.0.1:${2190 + OFFSET + id}`;

let keeper: KeeperProcess;
let stateDir: string;

test.describe.configure({ mode: 'serial' });
test.use({ baseURL: KEEPER_URL, viewport: DESKTOP });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-e2e-resize-'));
  keeper = await launchKeeper(
    [
      '--sandbox-port-offset',
      String(OFFSET),
      '--state-dir',
      join(stateDir, 'sandbox'),
      '--data-dir',
      join(stateDir, 'server'),
      '--port',
      String(KEEPER_PORTS.e2eResize),
    ],
    { KEEPER_ADMIN_TOKEN: E2E_ADMIN_TOKEN, KEEPER_VIEWER_TOKEN: E2E_VIEWER_TOKEN },
    { timeoutMs: 150_000 },
  );
});

test.afterAll(async () => {
  await keeper?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

async function viewerPage(browser: Browser, theme: 'dark' | 'light'): Promise<Page> {
  const context = await browser.newContext({ baseURL: KEEPER_URL, viewport: PHONE, extraHTTPHeaders: { Authorization: `Bearer ${E2E_VIEWER_TOKEN}` } });
  const page = await context.newPage();
  await useTheme(page, theme);
  return page;
}

/** A follower whose client port is not the one Keeper's own session is on (freezing it leaves the page live). */
async function followerOutsideKeepersSession(page: Page): Promise<number> {
  const summary = (await (await page.request.get('/api/ensembles/default')).json()) as { session: { member: string | null } };
  const health = (await (await page.request.get('/api/ensembles/default/members')).json()) as {
    members: { id: number | null; address: string; state: string }[];
  };
  const follower = health.members.find((m) => m.state === 'follower' && m.id !== null && m.id <= 3 && m.address !== summary.session.member);
  if (!follower) throw new Error(`no follower to freeze in ${JSON.stringify(health.members)}`);
  return follower.id!;
}

/** Runs the start command the page shows for a member, as the operator would paste it. */
async function runShownCommand(resize: ResizePage, id: number): Promise<void> {
  const command = (await resize.joiners.getByLabel(`Start command for member ${id}`, { exact: true }).textContent())!;
  expect(command).toBe(`npm run sandbox -- add ${id} --role participant --state-dir ${join(stateDir, 'sandbox')}`);
  const { stdout } = await promisify(execFile)('sh', ['-c', command], { timeout: 90_000 });
  expect(stdout).toContain(`reconfig -add ${lineOf(id)}`);
}

test('an admin grows the sandbox from the sizing view while a viewer follows on a phone, and shrinks it back', async ({ page, browser }, testInfo) => {
  test.setTimeout(DOCS_SCREENSHOTS ? 300_000 : 180_000);
  const shot = (name: string) => docsShot(name, (n) => testInfo.outputPath(n));
  await useTheme(page, 'dark');
  const resize = new ResizePage(page);
  // The sizing view offers the way in; the page reads /zookeeper/config for the plan.
  await expect(async () => {
    await resize.openFromSizing();
    await expect(resize.composer).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
  await expect(resize.composer.getByRole('row')).toHaveCount(4);

  // The plan as it is typed: the suggested lines are the sandbox's own layout.
  for (const id of ADDED) {
    await resize.button('+ Add a member').click();
    await expect(resize.composer.getByRole('textbox').last()).toHaveValue(lineOf(id));
  }
  const grown = ADDED.length === 1 ? '4 voters tolerate 1 failure' : '5 voters tolerate 2 failures';
  await expect(resize.plan).toContainText(`3 voters tolerate 1 failure → ${grown}`);
  await expect(resize.plan.locator('code')).toHaveText(ADDED.map((id) => `reconfig -add ${lineOf(id)}`));
  if (DOCS_SCREENSHOTS) {
    await settle(page);
    await page.screenshot({ path: shot('resize-plan-dark.png') });
  }
  await resize.button('Plan').click();

  // Planned: the preflight names each member to add as not running, and the page says how to start it.
  await expect(resize.state()).toHaveText('planned');
  for (const id of ADDED) await expect(resize.workflow.getByRole('list', { name: 'Preflight checks' })).toContainText(`member ${id} ready`);
  await expect(resize.workflow.getByRole('list', { name: 'Preflight checks' })).toContainText('does not answer srvr as a serving learner');
  const id = (await resize.workflow.locator('.resize-workflow__title a').getAttribute('href'))!.split('/').pop()!;
  if (DOCS_SCREENSHOTS) {
    await settle(page);
    await page.screenshot({ path: shot('resize-planned-dark.png'), fullPage: true });
    await useTheme(page, 'light');
    await page.reload();
    await expect(resize.state()).toHaveText('planned');
    await settle(page);
    await page.screenshot({ path: shot('resize-planned-light.png'), fullPage: true });
    await useTheme(page, 'dark');
    await page.reload();
    await expect(resize.state()).toHaveText('planned');
  }
  for (const member of ADDED) await runShownCommand(resize, member);

  // A viewer follows the resize by its link, on a phone: the same words, not one control; the API refuses it too.
  const viewer = await viewerPage(browser, 'light');
  const followed = new ResizePage(viewer);
  await viewer.goto(`/ensembles/default/members/resize/${id}`);
  await expect(followed.state()).toHaveText('planned');
  await expect(followed.workflow).toContainText('An admin starts it.');
  await expect(followed.joiners).toContainText('The ensemble has a start command; admins see it.');
  const refused = await viewer.request.post(`/api/ensembles/default/reconfig/${id}/start`, { data: {}, headers: { Origin: KEEPER_URL } });
  expect(refused.status()).toBe(403);

  const started = page.waitForResponse((r) => r.url().endsWith(`/reconfig/${id}/start`));
  await resize.button('Start').click();
  expect((await started).status()).toBe(200);
  if (DOCS_SCREENSHOTS) {
    // A step takes well under a second: for a picture of a run under way, the run is paused after
    // step 1 (as an admin may), a follower that is not Keeper's own member is frozen, and on
    // Resume the check after step 2 waits for that member's role until it is thawed.
    const paused = await page.request.post(`/api/ensembles/default/reconfig/${id}/pause`, {
      data: { reason: 'for the picture' },
      headers: { Origin: KEEPER_URL },
    });
    expect(paused.status(), await paused.text()).toBe(200);
    await expect(resize.state()).toHaveText('paused');
    await expect(resize.steps.first()).toContainText('verified', { timeout: 30_000 });
    const frozen = await followerOutsideKeepersSession(page);
    await runDrill(join(stateDir, 'sandbox'), 'freeze', frozen, { timeoutMs: 20_000 });
    try {
      await resize.button('Resume').click();
      await expect(followed.workflow.locator('.resize-progress__sentence')).toHaveText(/verifying/, { timeout: 30_000 });
      await expect(followed.workflow.getByRole('list', { name: /^Checks after step/ })).toContainText('no answer', { timeout: 10_000 });
      await settle(viewer);
      await Promise.all([
        viewer.screenshot({ path: shot('resize-running-light-phone.png'), fullPage: true }),
        page.screenshot({ path: shot('resize-running-dark.png') }),
      ]);
      const sizing = await page.context().newPage();
      await sizing.goto('/ensembles/default/members');
      await expect(new ResizePage(sizing).sizingBlock).toContainText('running');
      await settle(sizing);
      await sizing.screenshot({ path: shot('resize-sizing-running-dark.png') });
      await sizing.close();
    } finally {
      await runDrill(join(stateDir, 'sandbox'), 'thaw', frozen, { timeoutMs: 20_000 });
    }
  }
  await expect(resize.state()).toHaveText('done', { timeout: 90_000 });
  await expect(followed.state()).toHaveText('done');
  await expect(followed.progress).toHaveAttribute('aria-valuenow', '100');
  await expect(followed.steps).toHaveCount(ADDED.length);
  for (const step of await followed.steps.all()) await expect(step).toContainText('verified');
  await expect(viewer.getByRole('button', { name: /^(Start|Pause|Resume|Abort…|Discard…|Plan|\+ Add a member)$/ })).toHaveCount(0);
  await expect(viewer.getByRole('textbox')).toHaveCount(0);

  // The ensemble and sizing views show the new membership.
  await page.goto('/ensembles/default/members');
  await expect(page.locator('.sizing__shape')).toContainText(`${3 + ADDED.length} voters`, { timeout: 20_000 });
  if (DOCS_SCREENSHOTS) {
    await useTheme(page, 'light');
    await page.goto(`/ensembles/default/members/resize/${id}`);
    await expect(resize.state()).toHaveText('done');
    await settle(page);
    await page.screenshot({ path: shot('resize-done-light.png') });
    await useTheme(page, 'dark');
  }

  // Back to 3: member 4 (and 5) removed from the same page; the sandbox stops what a reconfig removes.
  await page.goto('/ensembles/default/members/resize');
  for (const member of ADDED) await resize.composer.getByRole('checkbox', { name: `Remove member ${member}` }).check();
  await expect(resize.plan).toContainText(`${grown} → 3 voters tolerate 1 failure`);
  await resize.button('Plan').click();
  await expect(resize.state()).toHaveText('planned');
  // Should Keeper's own session have moved to a member being removed, the plan names that risk and its phrase.
  const risk = resize.workflow.getByRole('textbox', { name: /to accept the risk/ });
  if ((await risk.count()) > 0) await risk.fill((await resize.workflow.locator('.resize-confirm label .mono').textContent())!);
  await resize.button('Start').click();
  await expect(resize.state()).toHaveText('done', { timeout: 90_000 });
  await page.goto('/ensembles/default/members');
  await expect(page.locator('.sizing__shape')).toContainText('3 voters', { timeout: 20_000 });
  await expect(page.getByRole('region', { name: 'Members' }).locator('.member')).toHaveCount(3, { timeout: 20_000 });
  await expect(page.getByRole('region', { name: 'Removed members' })).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByText(/Keeper's connection string is now 127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+ \(was/)).toBeVisible();
  await viewer.context().close();
});
