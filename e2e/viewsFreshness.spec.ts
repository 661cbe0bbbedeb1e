/**
 * Truth first on the Locks and Upgrades views, with the console's member frozen (SIGSTOP): each
 * view says "unconfirmed since" within 3 s, with an "as of" no later than the freeze, keeps that
 * time while the member hangs, and disables what would act on data not known to be current
 * ("Clean leaked…", "Check and plan"); it is live again within 3 s of the member answering.
 * The lock shown is a real kazoo lock with a waiter, so the list has something to be stale about.
 * Then the Resize page and the admin area's Replicas panel with the Keeper server the page is on
 * frozen (SIGSTOP): each says "as of" within 3 s, no later than the freeze, and is live again once
 * it answers. The panel is not a socket view: it asks GET /api/replicas every 2 s, and is frozen
 * right after an answer, the worst moment for a panel that dated its list by its receipt.
 */
import { expect, test, type Page } from '@playwright/test';
import { kazooLockScenario, type KazooLockScenario } from '../scripts/lib/locks/index.js';
import { pidListeningOn } from '../scripts/sandbox/procfs.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { signIn } from './support/ensemblePage.js';
import { settle } from './support/screenshots.js';
import { E2E_PORT } from '../playwright.config.js';

const STALENESS_BOUND_MS = 3_000;
/** The page is polled every 50 ms: a time it reports is this late at worst. */
const POLL_SLACK_MS = 100;

test.use({ viewport: { width: 1440, height: 900 } });
test.describe.configure({ mode: 'serial' });

async function consoleMemberPort(page: Page): Promise<number> {
  const res = await page.request.get('/api/ensembles');
  const body = (await res.json()) as { ensembles: { name: string; session: { member: string | null } }[] };
  const member = body.ensembles.find((e) => e.name === 'default')?.session.member;
  expect(member, 'the console is connected to a member').toBeTruthy();
  return Number(member!.split(':')[1]);
}

/** Freezes the console's member, runs `during` with the freeze time, and always thaws it. */
async function withConsoleMemberFrozen(page: Page, during: (frozenAt: number) => Promise<void>): Promise<void> {
  const pid = pidListeningOn(await consoleMemberPort(page));
  if (pid === null) throw new Error("no process listens on the console's member port");
  const frozenAt = Date.now();
  process.kill(pid, 'SIGSTOP');
  try {
    await during(frozenAt);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** Waits for the view's "as of" note; answers when it first showed and the time it carries. */
async function markAfter(page: Page, frozenAt: number): Promise<{ seenAfterMs: number; asOf: number; text: string }> {
  const note = page.locator('.view [data-as-of]').first();
  let seen: { seenAfterMs: number; asOf: number; text: string } | null = null;
  await expect
    .poll(
      async () => {
        if ((await note.count()) === 0) return false;
        seen = { seenAfterMs: Date.now() - frozenAt, asOf: Number(await note.getAttribute('data-as-of')), text: (await note.textContent()) ?? '' };
        return true;
      },
      { timeout: 20_000, intervals: [50] },
    )
    .toBe(true);
  return seen!;
}

async function expectStaleThenLive(page: Page, disabledWhileStale: string): Promise<void> {
  await withConsoleMemberFrozen(page, async (frozenAt) => {
    const mark = await markAfter(page, frozenAt);
    console.log(`measured: ${page.url()} member hung -> "${mark.text.trim()}" after ${mark.seenAfterMs} ms`);
    expect(mark.seenAfterMs).toBeLessThanOrEqual(STALENESS_BOUND_MS + POLL_SLACK_MS);
    expect(mark.text).toContain('unconfirmed since');
    expect(mark.asOf).toBeLessThanOrEqual(frozenAt);
    await expect(page.getByRole('button', { name: disabledWhileStale })).toBeDisabled();
    // The time stays put for as long as the member hangs.
    await page.waitForTimeout(1_500);
    await expect(page.locator('.view [data-as-of]').first()).toHaveAttribute('data-as-of', String(mark.asOf));
  });
  const thawedAt = Date.now();
  await expect(page.locator('.view [data-as-of]')).toHaveCount(0, { timeout: 10_000 });
  console.log(`measured: ${page.url()} live again ${Date.now() - thawedAt} ms after the member answered`);
  await expect(page.getByRole('button', { name: disabledWhileStale })).toBeEnabled();
}

test('locks: a hung console member is said within 3 s, as of the freeze, and cleaning waits until it is live', async ({ page }, info) => {
  test.setTimeout(120_000);
  const root = testRoot(info.testId, info.retry);
  let lock: KazooLockScenario | null = null;
  try {
    lock = await kazooLockScenario({ hosts: E2E_HOSTS, path: `${root}/locks/job`, waiters: 1 });
    await signIn(page);
    // Opening the lock makes Keeper track it (the e2e root is not a configured lock root).
    await page.goto(`/ensembles/default/locks${root}/locks/job`);
    await expect(page.getByRole('table', { name: 'Contenders' })).toBeVisible({ timeout: 20_000 });
    await page.goto('/ensembles/default/locks');
    await expect(page.getByRole('link', { name: `${root}/locks/job`, exact: true })).toBeVisible({ timeout: 20_000 });
    await expectStaleThenLive(page, 'Clean leaked…');
  } finally {
    await lock?.stop();
  }
});

test('upgrades: a hung console member is said within 3 s, as of the freeze, and planning waits until it is live', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto('/ensembles/default/upgrades');
  await expect(page.getByRole('button', { name: 'Check and plan' })).toBeEnabled({ timeout: 20_000 });
  await expectStaleThenLive(page, 'Check and plan');
});

/** Views under a hung Keeper server (the lane's own, which the page is on), checked alike. */
const KEEPER_HUNG_VIEWS: { view: string; path: string; ready: (page: Page) => Promise<unknown>; mark: string }[] = [
  {
    view: 'the Resize page',
    path: '/ensembles/default/members/resize',
    ready: (page) => expect(page.getByRole('form', { name: 'Plan a resize' })).toBeVisible({ timeout: 20_000 }),
    mark: '.view [data-as-of]',
  },
  {
    view: 'the Replicas panel',
    path: '/audit/replicas',
    // Frozen just after an answer: the panel must count from the server's reading, not wait for a missed refresh.
    ready: async (page) => {
      await expect(page.getByTestId('replicas-live')).toBeVisible({ timeout: 20_000 });
      await page.waitForResponse((r) => r.url().endsWith('/api/replicas') && r.status() === 200);
    },
    mark: '.replicas-status [data-as-of]',
  },
];

for (const { view, path, ready, mark } of KEEPER_HUNG_VIEWS) {
  test(`${view}: a hung Keeper server is said "as of" within 3 s, no later than the freeze; live again when it answers`, async ({ page }, info) => {
    test.setTimeout(90_000);
    await signIn(page);
    await page.goto(path);
    await ready(page);
    const pid = pidListeningOn(E2E_PORT);
    if (pid === null) throw new Error('no process listens on the e2e Keeper port');
    const frozenAt = Date.now();
    process.kill(pid, 'SIGSTOP');
    try {
      const note = page.locator(mark).first();
      await expect(note).toBeVisible({ timeout: 20_000 });
      const seenAfterMs = Date.now() - frozenAt;
      const asOf = Number(await note.getAttribute('data-as-of'));
      console.log(
        `measured: ${path} Keeper hung -> "${((await note.textContent()) ?? '').trim()}" after ${seenAfterMs} ms, as of ${frozenAt - asOf} ms before the freeze`,
      );
      expect(seenAfterMs).toBeLessThanOrEqual(STALENESS_BOUND_MS + POLL_SLACK_MS);
      await expect(note).toContainText(/as of \d\d:\d\d:\d\d/);
      expect(asOf).toBeLessThanOrEqual(frozenAt);
      await page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
      await settle(page, 200);
      await page.screenshot({ path: info.outputPath('keeper-hung-dark.png') });
      if (path === '/audit/replicas') {
        await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
        await page.screenshot({ path: info.outputPath('keeper-hung-light.png') });
        await page.setViewportSize({ width: 390, height: 844 });
        await settle(page, 200);
        await page.screenshot({ path: info.outputPath('keeper-hung-phone-light.png'), fullPage: true });
        await page.setViewportSize({ width: 1440, height: 900 });
      }
      // The time stays put for as long as the server hangs.
      await page.waitForTimeout(1_500);
      await expect(page.locator(mark).first()).toHaveAttribute('data-as-of', String(asOf));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const thawedAt = Date.now();
    await expect(page.locator(mark)).toHaveCount(0, { timeout: 15_000 });
    console.log(`measured: ${path} live again ${Date.now() - thawedAt} ms after the Keeper server answered`);
  });
}
