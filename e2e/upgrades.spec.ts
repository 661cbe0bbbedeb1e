/**
 * The Upgrades view in Chromium against the real sandbox (issue 13): an admin plans a rolling
 * restart (the preflight's checks and the order: followers first, the leader last), starts it,
 * pauses and resumes it; a viewer follows the same workflow live, read-only; the sandbox restarts
 * its members one at a time and the workflow ends done, in the history. Then a target build no
 * member reaches (issue 22): the member back on another build is said to be so, restarted again,
 * and with every member skipped the upgrade ends "done with exceptions" in amber. Runs last-ish:
 * it restarts members of the shared sandbox (the specs run one at a time).
 */
import { expect, test } from '@playwright/test';
import { E2E_VIEWER_TOKEN } from '../playwright.config.js';
import { EnsemblePage, signIn } from './support/ensemblePage.js';
import { docsShot, settle } from './support/screenshots.js';
import { UpgradesPage } from './support/upgradesPage.js';

test.use({ viewport: { width: 1440, height: 900 } });

test('upgrades: a rolling restart planned, started, paused and resumed by an admin, followed live by a viewer, done', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  const upgrades = new UpgradesPage(page);
  await upgrades.abortUnfinished();
  await new EnsemblePage(page).useTheme('dark');
  await signIn(page);
  await upgrades.open();
  await expect(upgrades.navLink).toHaveClass(/is-active/);

  await page.getByRole('button', { name: 'Check and plan' }).click();
  const plan = upgrades.plan;
  await expect(plan).toBeVisible();
  // The order: followers first, the leader last, so there is one election.
  await expect(plan.getByText(/^Order: member \d, member \d, then the leader, member \d\.$/)).toBeVisible();
  await expect(plan.getByText('3 of 3 voters serving')).toBeVisible();
  await settle(page);
  await page.screenshot({ path: docsShot('upgrade-plan-dark.png', (n) => info.outputPath(n)), fullPage: true });

  await page.getByRole('button', { name: 'Start' }).click();
  await expect(upgrades.sentence).toHaveText(/^Restarting member \d \(next: \d, then the leader, \d\)$/, { timeout: 60_000 });
  await expect(page.getByRole('progressbar')).toBeVisible();

  // A viewer sees the same workflow, live, with no control at all.
  // A context of its own still gets the config's admin header unless told otherwise.
  const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { Authorization: `Bearer ${E2E_VIEWER_TOKEN}` } });
  const viewer = await viewerContext.newPage();
  const followed = new UpgradesPage(viewer);
  // The viewer follows in the light theme, at a phone's width.
  await new EnsemblePage(viewer).useTheme('light');
  await followed.open();
  await expect(viewer.getByRole('button', { name: /Signed in: .*viewer/ })).toBeVisible();
  await expect(followed.sentence).toHaveText(/^(Restarting|Checking|Waiting|Settling|Syncing)/, { timeout: 30_000 });
  await expect(viewer.getByRole('button', { name: /^(Pause|Resume|Abort…|Skip…|Mark done)$/ })).toHaveCount(0);
  await expect(viewer.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(viewer.getByRole('list', { name: 'Clients during the upgrade' })).toContainText(
    /No session expired during the upgrade|Session expiries not known/,
  );
  await settle(viewer);
  await viewer.screenshot({ path: docsShot('upgrade-running-light-phone.png', (n) => info.outputPath(n)), fullPage: true });
  await settle(page);
  await page.screenshot({ path: docsShot('upgrade-running-dark.png', (n) => info.outputPath(n)), fullPage: true });

  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(
    page
      .getByRole('alert')
      .filter({ hasText: /paused/i })
      .first(),
  ).toBeVisible();
  await expect(followed.paused).toBeVisible({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Resume' }).click();

  // Three members, one at a time: the workflow ends done for both browsers.
  await expect(upgrades.sentence).toHaveText(/^Done/, { timeout: 240_000 });
  await expect(followed.sentence).toHaveText(/^Done/, { timeout: 10_000 });
  await settle(viewer);
  await viewer.screenshot({ path: docsShot('upgrade-done-phone.png', (n) => info.outputPath(n)), fullPage: true });
  await viewerContext.close();
  await expect(upgrades.historyRow('done')).toBeVisible({ timeout: 10_000 });
});

test('upgrades: a target build no member reaches is said as it is, restarted again, and skipped members end "done with exceptions" in amber', async ({
  page,
  browser,
}, info) => {
  test.setTimeout(300_000);
  const upgrades = new UpgradesPage(page);
  await upgrades.abortUnfinished();
  await new EnsemblePage(page).useTheme('dark');
  await signIn(page);
  await upgrades.open();
  await page.getByRole('textbox', { name: 'Target version (optional)' }).fill('built on 1999-01-01');
  await page.getByRole('button', { name: 'Check and plan' }).click();
  await expect(upgrades.plan.getByText('3 of 3 voters serving')).toBeVisible();
  await page.getByRole('button', { name: 'Start' }).click();

  // The first member comes back, synced, on the installed build: said as what it is, at once.
  const paused = upgrades.paused;
  const mismatch =
    /member \d serves and is synced, but runs 3\.8\.0 built on \d{4}-\d\d-\d\d, not the target built on 1999-01-01\. Restart it again, skip it, or abort\./;
  await expect(paused).toContainText(mismatch, { timeout: 120_000 });
  await expect(paused).not.toContainText('did not sync');
  const current = upgrades.currentStep;
  await expect(current.getByRole('button', { name: 'Restart again' })).toBeVisible();
  await expect(current.getByRole('button', { name: /^Skip .*…$/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Abort…' })).toBeVisible();
  await settle(page);
  await page.screenshot({ path: docsShot('upgrade-build-mismatch-dark.png', (n) => info.outputPath(n)), fullPage: true });

  // A viewer on a phone reads the same sentence, with no control.
  const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { Authorization: `Bearer ${E2E_VIEWER_TOKEN}` } });
  const viewer = await viewerContext.newPage();
  const followed = new UpgradesPage(viewer);
  await new EnsemblePage(viewer).useTheme('light');
  await followed.open();
  await expect(followed.paused).toContainText(mismatch);
  await expect(viewer.getByRole('button', { name: /^(Restart again|Skip .*…|Abort…|Resume)$/ })).toHaveCount(0);
  await settle(viewer);
  await viewer.screenshot({ path: docsShot('upgrade-build-mismatch-light-phone.png', (n) => info.outputPath(n)), fullPage: true });

  // Restart again: the same member goes through its gates and its restart once more, and pauses again on its build.
  const again = current.getAttribute('aria-label');
  await current.getByRole('button', { name: 'Restart again' }).click();
  await expect(paused).toBeHidden({ timeout: 10_000 });
  const member = page.getByRole('article', { name: (await again)!, exact: true });
  await expect(member.getByText(/asked for another restart: the gates are checked first/)).toBeVisible();
  await expect(paused).toContainText(mismatch, { timeout: 120_000 });

  // Every member skipped: it ends, and it is not done.
  for (const card of await upgrades.steps.all()) await upgrades.skipStep(card);
  await expect(upgrades.sentence).toHaveText(
    /^Done with exceptions: 0 members restarted in .*, 3 skipped; not as planned: member \d, member \d and member \d\.$/,
    {
      timeout: 30_000,
    },
  );
  const badge = page.getByRole('heading', { name: /Rolling restart/ }).locator('.status');
  await expect(badge).toHaveText('done with exceptions');
  await expect(badge).toHaveClass(/tone-degraded/);
  const exceptions = page.locator('.callout').filter({ hasText: 'Done with exceptions' });
  await expect(exceptions.getByRole('listitem')).toHaveCount(3);
  await expect(exceptions.getByRole('listitem').first()).toHaveText(
    /^member \d was skipped \(not restarted by this upgrade\); it runs 3\.8\.0 built on \d{4}-\d\d-\d\d, not the target built on 1999-01-01\.$/,
  );
  await settle(page);
  await page.screenshot({ path: docsShot('upgrade-exceptions-dark.png', (n) => info.outputPath(n)), fullPage: true });
  await expect(followed.sentence).toHaveText(/^Done with exceptions/, { timeout: 10_000 });
  await settle(viewer);
  await viewer.screenshot({ path: docsShot('upgrade-exceptions-light-phone.png', (n) => info.outputPath(n)), fullPage: true });
  await viewerContext.close();
  await expect(upgrades.historyRow('done with exceptions')).toBeVisible({ timeout: 10_000 });
});
