/**
 * The Upgrades view in Chromium against the real sandbox (issue 13): an admin plans a rolling
 * restart (the preflight's checks and the order: followers first, the leader last), starts it,
 * pauses and resumes it; a viewer follows the same workflow live, read-only; the sandbox restarts
 * its members one at a time and the workflow ends done, in the history. Then a target build no
 * member reaches (issue 22): the member back on another build is said to be so, restarted again,
 * and with every member skipped the upgrade ends "done with exceptions" in amber. Runs last-ish:
 * it restarts members of the shared sandbox (the specs run one at a time).
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { E2E_VIEWER_TOKEN } from '../playwright.config.js';
import { EnsemblePage, signIn } from './support/ensemblePage.js';
import { docsShot, settle } from './support/screenshots.js';

test.use({ viewport: { width: 1440, height: 900 } });

const sentence = (page: Page) => page.locator('.upgrade-progress__sentence');

/** Upgrades are durable: one left planned, running or paused by an earlier run (or a retry) is aborted first. */
async function abortUnfinished(page: Page): Promise<void> {
  // Keeper reads the upgrades once it knows the ensemble's identity (503 NOT_READY until its first poll).
  await expect.poll(async () => (await page.request.get('/api/ensembles/default/upgrades')).status(), { timeout: 30_000 }).toBe(200);
  const list = await page.request.get('/api/ensembles/default/upgrades');
  expect(list.status()).toBe(200);
  const { upgrades } = (await list.json()) as { upgrades: { id: string; state: string }[] };
  for (const u of upgrades.filter((x) => ['planned', 'running', 'paused'].includes(x.state))) {
    const res = await page.request.post(`/api/ensembles/default/upgrades/${u.id}/abort`, { data: { reason: 'left by an earlier e2e run' } });
    expect(res.status(), await res.text()).toBe(200);
  }
}

test('upgrades: a rolling restart planned, started, paused and resumed by an admin, followed live by a viewer, done', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  await abortUnfinished(page);
  await new EnsemblePage(page).useTheme('dark');
  await signIn(page);
  await page.goto('/ensembles/default/upgrades');
  await expect(page.getByRole('navigation', { name: 'default views' }).getByRole('link', { name: 'Upgrades' })).toHaveClass(/is-active/);

  await page.getByRole('button', { name: 'Check and plan' }).click();
  const plan = page.getByRole('form', { name: 'The plan' });
  await expect(plan).toBeVisible();
  // The order: followers first, the leader last, so there is one election.
  await expect(plan.getByText(/^Order: member \d, member \d, then the leader, member \d\.$/)).toBeVisible();
  await expect(plan.getByText('3 of 3 voters serving')).toBeVisible();
  await settle(page);
  await page.screenshot({ path: docsShot('upgrade-plan-dark.png', (n) => info.outputPath(n)), fullPage: true });

  await page.getByRole('button', { name: 'Start' }).click();
  await expect(sentence(page)).toHaveText(/^Restarting member \d \(next: \d, then the leader, \d\)$/, { timeout: 60_000 });
  await expect(page.getByRole('progressbar')).toBeVisible();

  // A viewer sees the same workflow, live, with no control at all.
  // A context of its own still gets the config's admin header unless told otherwise.
  const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { Authorization: `Bearer ${E2E_VIEWER_TOKEN}` } });
  const viewer = await viewerContext.newPage();
  // The viewer follows in the light theme, at a phone's width.
  await new EnsemblePage(viewer).useTheme('light');
  await viewer.goto('/ensembles/default/upgrades');
  await expect(viewer.getByRole('button', { name: /Signed in: .*viewer/ })).toBeVisible();
  await expect(sentence(viewer)).toHaveText(/^(Restarting|Checking|Waiting|Settling|Syncing)/, { timeout: 30_000 });
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
  await expect(viewer.getByRole('alert').filter({ hasText: 'The upgrade is paused' })).toBeVisible({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Resume' }).click();

  // Three members, one at a time: the workflow ends done for both browsers.
  await expect(sentence(page)).toHaveText(/^Done/, { timeout: 240_000 });
  await expect(sentence(viewer)).toHaveText(/^Done/, { timeout: 10_000 });
  await settle(viewer);
  await viewer.screenshot({ path: docsShot('upgrade-done-phone.png', (n) => info.outputPath(n)), fullPage: true });
  await viewerContext.close();
  await expect(
    page
      .getByRole('region', { name: 'History' })
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'done', exact: true }) })
      .first(),
  ).toBeVisible({ timeout: 10_000 });
});

/** Skips the step on `card` through its dialog, typing the phrase the dialog names. */
async function skipStep(page: Page, card: Locator): Promise<void> {
  await card.getByRole('button', { name: /^Skip .*…$/ }).click();
  const dialog = page.getByRole('dialog', { name: /^Skip / });
  const phrase = (await dialog.locator('label .mono').first().textContent())!;
  expect(phrase).toMatch(/^skip member \d$/);
  await dialog.getByRole('textbox').fill(phrase);
  await dialog.getByRole('button', { name: 'Skip this member' }).click();
  await expect(dialog).toBeHidden();
}

test('upgrades: a target build no member reaches is said as it is, restarted again, and skipped members end "done with exceptions" in amber', async ({
  page,
  browser,
}, info) => {
  test.setTimeout(300_000);
  await abortUnfinished(page);
  await new EnsemblePage(page).useTheme('dark');
  await signIn(page);
  await page.goto('/ensembles/default/upgrades');
  await page.getByRole('textbox', { name: 'Target version (optional)' }).fill('built on 1999-01-01');
  await page.getByRole('button', { name: 'Check and plan' }).click();
  await expect(page.getByRole('form', { name: 'The plan' }).getByText('3 of 3 voters serving')).toBeVisible();
  await page.getByRole('button', { name: 'Start' }).click();

  // The first member comes back, synced, on the installed build: said as what it is, at once.
  const paused = page.getByRole('alert').filter({ hasText: 'The upgrade is paused' });
  const mismatch =
    /member \d serves and is synced, but runs 3\.8\.0 built on \d{4}-\d\d-\d\d, not the target built on 1999-01-01\. Restart it again, skip it, or abort\./;
  await expect(paused).toContainText(mismatch, { timeout: 120_000 });
  await expect(paused).not.toContainText('did not sync');
  const current = page.locator('article[aria-current="step"]');
  await expect(current.getByRole('button', { name: 'Restart again' })).toBeVisible();
  await expect(current.getByRole('button', { name: /^Skip .*…$/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Abort…' })).toBeVisible();
  await settle(page);
  await page.screenshot({ path: docsShot('upgrade-build-mismatch-dark.png', (n) => info.outputPath(n)), fullPage: true });

  // A viewer on a phone reads the same sentence, with no control.
  const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { Authorization: `Bearer ${E2E_VIEWER_TOKEN}` } });
  const viewer = await viewerContext.newPage();
  await new EnsemblePage(viewer).useTheme('light');
  await viewer.goto('/ensembles/default/upgrades');
  await expect(viewer.getByRole('alert').filter({ hasText: 'The upgrade is paused' })).toContainText(mismatch);
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
  for (const card of await page.getByRole('region', { name: 'The upgrade' }).getByRole('article').all()) await skipStep(page, card);
  await expect(sentence(page)).toHaveText(
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
  await expect(sentence(viewer)).toHaveText(/^Done with exceptions/, { timeout: 10_000 });
  await settle(viewer);
  await viewer.screenshot({ path: docsShot('upgrade-exceptions-light-phone.png', (n) => info.outputPath(n)), fullPage: true });
  await viewerContext.close();
  await expect(
    page
      .getByRole('region', { name: 'History' })
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'done with exceptions', exact: true }) })
      .first(),
  ).toBeVisible({ timeout: 10_000 });
});
