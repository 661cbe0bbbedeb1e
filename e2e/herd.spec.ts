/**
 * Seed 000's request herd in the browser, against the real sandbox: kazoo workers loop getChildren
 * on a list of 3,000 tasks, idle clients beside them. The sessions view sorts the busiest first,
 * sums them by client host, names the herd with what to do (and the task list, which a second tab
 * has open in the tree), and drops the herd once the loop stops. Screenshots in both themes go
 * to docs/screenshots/ with KEEPER_DOCS_SCREENSHOTS=1. The ensemble view names the herd among its alerts, with a
 * link to the sessions, and its timeline says when it was raised (issue 22 item 15).
 */
import { expect, test, type Page } from '@playwright/test';
import { holdSessions, kazoo, startRequestHerd, type HeldSessions, type RunningRequestHerd } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { EnsemblePage, signIn } from './support/ensemblePage.js';
import { docsShot, settle } from './support/screenshots.js';
import { TreePage } from './support/treePage.js';

const WORKERS = 30;
const TASKS = 3_000;

test.use({ viewport: { width: 1440, height: 900 } });

/** Presses "Gather now" whenever the server allows it, until the check passes. */
async function gatherUntil(view: EnsemblePage, check: () => Promise<void>, timeout: number): Promise<void> {
  await expect(async () => {
    if (await view.gatherNow.isEnabled()) await view.gatherNow.click();
    await check();
  }).toPass({ timeout, intervals: [1_000, 2_000] });
}

const herdAlert = (page: Page) => page.getByRole('alert', { name: /^Request herd:/ });

test('sessions: a request herd is named with its hosts, rate and fix, the busiest first, and cleared when it stops', async ({ page, context }, info) => {
  test.setTimeout(240_000);
  const root = testRoot(info.testId, info.retry);
  const taskList = `${root}/tasks/shard-00`;
  await kazoo(E2E_HOSTS, [{ op: 'grow', path: `${root}/tasks`, shards: 1, perShard: TASKS }]);
  let idle: HeldSessions | null = null;
  let herd: RunningRequestHerd | null = null;
  try {
    idle = await holdSessions([0, 1, 2].map(() => ({ hosts: E2E_HOSTS, timeout: 30 })));
    await signIn(page);
    // Another tab has the task list open: Keeper holds its child count, so the herd's target is named for free.
    const tree = new TreePage(await context.newPage());
    await tree.open('default', taskList);
    // A tenth of a second between calls (up to 10 req/s a worker, 300 together): a herd by any rule, and
    // the browser under test still gets the CPU of a 2-core machine that the unpaced loop took from it.
    herd = await startRequestHerd({ hosts: E2E_HOSTS, path: taskList, workers: WORKERS, pauseS: 0.1 });

    const view = new EnsemblePage(page);
    await view.useTheme('dark');
    await view.openSessions('default');
    await expect(view.sessions).toBeVisible();
    await gatherUntil(view, () => expect(herdAlert(page)).toBeVisible({ timeout: 1_500 }), 90_000);
    const alert = herdAlert(page);
    await expect(alert).toContainText(/Request herd: \d+ sessions from 1 host send [\d,]+ req\/s together, mostly getChildren/);
    await expect(alert).toContainText('127.0.0.1');
    await expect(alert).toContainText(taskList);
    await expect(alert).toContainText('KazooRetry');

    // The busiest first: a worker on top, with its rate.
    await page.getByRole('button', { name: 'Busiest first' }).click();
    await expect(page.getByRole('columnheader', { name: /^Req\/s/ })).toHaveAttribute('aria-sort', 'descending');
    const firstRow = view.sessions.getByRole('row').nth(1);
    const firstId = (await firstRow.locator('.srow__id').innerText()).trim();
    expect(herd.ids).toContain(firstId);
    const topRate = Number((await firstRow.locator('[data-label="req/s"]').innerText()).replace(/,/g, ''));
    expect(topRate).toBeGreaterThan(5);
    await settle(page);
    await page.screenshot({ path: docsShot('sessions-herd-dark.png', (n) => info.outputPath(n)) });

    // By client host: every worker from one host, marked as the herd.
    await page.getByRole('button', { name: 'By host' }).click();
    const hosts = page.getByRole('list', { name: 'Sessions by client host' });
    await expect(hosts.getByRole('button').first()).toContainText(/\d+ sessions from 127\.0\.0\.1, [\d,]+ req\/s/);
    await expect(hosts.getByRole('button').first()).toContainText('herd');
    await settle(page);
    await page.screenshot({ path: docsShot('sessions-by-host-dark.png', (n) => info.outputPath(n)) });

    // The same in the light theme.
    await view.useTheme('light');
    await view.openSessions('default');
    await expect(herdAlert(page)).toBeVisible();
    await page.getByRole('button', { name: 'Busiest first' }).click();
    await settle(page);
    await page.screenshot({ path: docsShot('sessions-herd-light.png', (n) => info.outputPath(n)) });
    await page.getByRole('button', { name: 'By host' }).click();
    await settle(page);
    await page.screenshot({ path: docsShot('sessions-by-host-light.png', (n) => info.outputPath(n)) });

    // Each member's packets per second, charted on its card.
    await view.openMembers('default');
    await expect(page.getByText('packets/s').first()).toBeVisible();
    await settle(page, 600);
    await page.screenshot({ path: docsShot('ensemble-packets-light.png', (n) => info.outputPath(n)) });

    // The herd is an ensemble alert (not "healthy · No alerts"), with the way to the sessions behind it (issue 22 item 15).
    const ensembleHerd = view.alerts.getByRole('article', { name: /^Request herd:/ });
    await expect(ensembleHerd).toBeVisible();
    await expect(view.quorum.locator('.quorum__word')).toHaveText('request herd');
    await expect(page.getByText('No alerts.')).toHaveCount(0);
    await expect(ensembleHerd).toContainText(/seen in the sessions gathering (just now|\d+ s ago)/);
    const timeline = page.getByRole('region', { name: 'Ensemble events' });
    await expect(timeline.getByRole('listitem').filter({ hasText: 'alert raised: Request herd:' }).first()).toBeVisible();
    // Tall enough for the alert, the cards and the timeline's latest entries (the view scrolls inside itself).
    await page.setViewportSize({ width: 1440, height: 1500 });
    await settle(page, 600);
    await page.screenshot({ path: docsShot('ensemble-herd-light.png', (n) => info.outputPath(n)) });
    await view.useTheme('dark');
    await view.openMembers('default');
    await expect(ensembleHerd).toBeVisible();
    await settle(page, 600);
    await page.screenshot({ path: docsShot('ensemble-herd-dark.png', (n) => info.outputPath(n)) });
    await page.setViewportSize({ width: 390, height: 844 });
    await ensembleHerd.scrollIntoViewIfNeeded();
    await settle(page, 600);
    await page.screenshot({ path: docsShot('ensemble-herd-phone.png', (n) => info.outputPath(n)) });
    await page.setViewportSize({ width: 1440, height: 900 });
    await ensembleHerd.getByRole('link', { name: 'Sessions, busiest first →' }).click();
    await expect(page).toHaveURL(/\/ensembles\/default\/sessions$/);
    await expect(herdAlert(page)).toBeVisible();

    await herd.stop();
    herd = null;
    await view.openSessions('default');
    await gatherUntil(view, () => expect(herdAlert(page)).toHaveCount(0, { timeout: 1_500 }), 60_000);
    await expect(page.getByRole('alert', { name: /herd/i })).toHaveCount(0);
  } finally {
    await herd?.stop().catch(() => 0);
    await idle?.release();
    await kazoo(E2E_HOSTS, [{ op: 'purge', path: root }]).catch(() => null);
  }
});
