/**
 * The ensemble, sessions and watches views against the real 3-member sandbox: the quorum in one
 * sentence and the members live from the poller; client sessions from cons and dump with the
 * flags an operator needs (a dead client still holding ephemerals, a silent one about to expire);
 * wchp on confirmation finding a herd. Screenshots go to docs/screenshots/ with KEEPER_DOCS_SCREENSHOTS=1.
 */
import { expect, test } from '@playwright/test';
import { holdSessions, kazoo, type HeldSessions } from '../scripts/lib/kazoo/index.js';
import { runDrill } from '../scripts/sandbox/controlClient.js';
import { E2E_HOSTS, E2E_STATE_DIR, testRoot } from './support/ensemble.js';
import { EnsemblePage, signIn } from './support/ensemblePage.js';
import { docsShot, DOCS_SCREENSHOTS, settle } from './support/screenshots.js';

/** Screenshots wait a little longer here: the charts draw their first points. */
const CHARTS_QUIET_MS = 600;

const ADDRESSES = E2E_HOSTS.split(',');
// The held clients read now and then, like real workers, rather than only pinging.
const BUSY = { busy: true };

// The size the docs' screenshots are taken at (like docs/screenshots/tree-*.png).
test.use({ viewport: { width: 1440, height: 900 } });

async function leaderAddress(view: EnsemblePage): Promise<string> {
  const leader = view.members.filter({ has: view.page.getByText('leader', { exact: true }) });
  await expect(leader).toHaveCount(1);
  return (await leader.getAttribute('aria-label')) ?? '';
}

test('the ensemble view shows the quorum in one sentence, three members and one leader', async ({ page }, info) => {
  const view = new EnsemblePage(page);
  await view.useTheme('dark');
  await signIn(page);
  await view.openMembers('default');

  await expect(view.quorum).toContainText('3 of 3 voters serving; tolerates 1 failure');
  await expect(view.quorum).toContainText('healthy');
  await expect(view.members).toHaveCount(3);
  for (const address of ADDRESSES) await expect(view.member(address)).toBeVisible();
  const leader = await leaderAddress(view);
  expect(ADDRESSES).toContain(leader);
  await expect(view.members.filter({ has: page.getByText('follower', { exact: true }) })).toHaveCount(2);
  await expect(view.member(leader)).toContainText(/synced followers\s*2 of 2/);
  await expect(page.getByText('live', { exact: true })).toBeVisible();

  // Each member's state says how old it is ("checked 4 s ago"), and the age ticks between polls.
  for (const address of ADDRESSES) await expect(view.memberChecked(address)).toHaveText(/^checked (just now|\d+ s ago)$/);
  const ages = new Set<string>();
  await expect(async () => {
    ages.add(await view.memberChecked(leader).innerText());
    expect(ages.size).toBeGreaterThan(2);
  }).toPass({ timeout: 10_000, intervals: [250] });

  // Sizing beside it: the live shape, a what-if from the live states, the calculator.
  await expect(view.sizing).toContainText('3 voters');
  await view.sizing.getByRole('combobox', { name: 'Member to take down' }).selectOption(leader);
  await expect(view.sizing).toContainText(`(${leader}) goes down now: 2 of 3 voters remain`);
  await expect(view.sizing).toContainText('holds, no margin');
  const calculator = view.sizing.getByRole('region', { name: 'Calculator' });
  await calculator.getByRole('button', { name: 'More voters' }).click();
  await calculator.getByRole('button', { name: 'More voters' }).click();
  await expect(calculator).toContainText(/tolerates\s*2 failures/);
  await expect(calculator).toContainText('survives one member in maintenance plus one unexpected failure');

  // A member's own URL opens it expanded and proposes it for the what-if.
  const follower = ADDRESSES.find((a) => a !== leader)!;
  await view.openMembers('default', follower);
  await expect(view.member(follower)).toHaveAttribute('aria-current', 'true');
  await expect(view.member(follower)).toContainText('packets received');
  await expect(view.sizing).toContainText(`(${follower}) goes down now`);

  await view.openMembers('default');
  await expect(view.members).toHaveCount(3);
  await settle(page, CHARTS_QUIET_MS);
  await page.screenshot({ path: docsShot('ensemble-dark.png', (n) => info.outputPath(n)) });
});

// A picture for the docs: the dark test above makes the same checks.
if (DOCS_SCREENSHOTS)
  test('the ensemble view in the light theme', async ({ page }, info) => {
    const view = new EnsemblePage(page);
    await view.useTheme('light');
    await signIn(page);
    await view.openMembers('default');
    await expect(view.quorum).toContainText('3 of 3 voters serving');
    await expect(view.members).toHaveCount(3);
    await settle(page, CHARTS_QUIET_MS);
    await page.screenshot({ path: docsShot('ensemble-light.png', (n) => info.outputPath(n)) });
  });

// The watches tests sit apart, with the sessions tests between them: wchp runs at most every 30 s
// per ensemble, so the second would otherwise wait out the first's.
test('watches: wchs per member, and wchp on confirmation finds the herd', async ({ page }, info) => {
  test.setTimeout(120_000);
  const root = testRoot(info.testId, info.retry);
  const config = `${root}/config/feature-flags`;
  await kazoo(E2E_HOSTS, [{ op: 'ensure', path: config }]);
  // Twelve sessions watching one node: every change wakes all of them (the thundering herd).
  const readers = await holdSessions(
    Array.from({ length: 12 }, () => ({ hosts: E2E_HOSTS, timeout: 30, watch: [config] })),
    BUSY,
  );
  try {
    await signIn(page);
    const view = new EnsemblePage(page);
    await view.openWatches('default');
    const summary = page.getByRole('table', { name: 'Watches per member' });
    for (const address of ADDRESSES) await expect(summary).toContainText(address);
    await expect(page.getByText(/wchp may be expensive/)).toBeVisible();

    const run = page.getByRole('button', { name: 'Watches by path (wchp)' });
    // wchp runs at most every 30 s per ensemble: wait for the server to allow it.
    await expect(run).toBeEnabled({ timeout: 35_000 });
    await run.click();
    const confirm = page.getByRole('dialog', { name: 'Run wchp on every member?' });
    await expect(confirm).toContainText('expensive');
    await confirm.getByRole('button', { name: 'Run wchp' }).click();
    const herds = page.getByRole('list', { name: 'Herd warnings' });
    await expect(herds).toContainText(config, { timeout: 15_000 });
    await expect(herds).toContainText('12 watchers');
    await expect(page.getByRole('table', { name: 'Most watched paths' })).toContainText(config);
  } finally {
    await readers.kill();
  }
});

test('sessions: every client session, the console’s own marked, dead and silent clients flagged', async ({ page }, info) => {
  // Each flag is a state held long enough for several gatherings (at most one per 10 s) however
  // loaded the machine: the dead client's 90 s session keeps it listed with no connection for the
  // whole test; the frozen client's 60 s session is silent from 25 s
  // after the freeze (its ping missed by the allowance) until it expires at 60 s. With 30 s sessions
  // the window was 12.5-30 s, and at a load of 17 no complete gathering fell inside it.
  test.setTimeout(180_000);
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [{ op: 'ensure', path: `${root}/config` }]);
  const held: HeldSessions[] = [];
  try {
    const workers = await holdSessions(
      [0, 1, 2, 3].map((i) => ({ hosts: E2E_HOSTS, timeout: 30, ephemerals: [`${root}/services/api/instance-${i}`], watch: [`${root}/config`] })),
      BUSY,
    );
    held.push(workers);
    const dead = await holdSessions([{ hosts: E2E_HOSTS, timeout: 90, ephemerals: [`${root}/queue/worker-7`] }], BUSY);
    held.push(dead);
    const stuck = await holdSessions([{ hosts: E2E_HOSTS, timeout: 60 }], BUSY);
    held.push(stuck);
    const [worker] = workers.ids;
    const [deadId] = dead.ids;
    const [stuckId] = stuck.ids;

    const view = new EnsemblePage(page);
    await view.useTheme('dark');
    await signIn(page);
    await view.openSessions('default');
    await expect(view.sessions).toBeVisible();

    // Gathering is rate-limited server-side: press "Gather now" whenever it is allowed until ours show.
    const gatherUntil = async (check: () => Promise<void>, timeout: number) =>
      expect(async () => {
        if (await view.gatherNow.isEnabled()) await view.gatherNow.click();
        await check();
      }).toPass({ timeout, intervals: [500, 1_000, 2_000] });

    await gatherUntil(() => expect(view.sessionRow(worker!)).toBeVisible({ timeout: 1_500 }), 40_000);
    await expect(view.sessions.getByRole('row').filter({ hasText: 'console' })).toHaveCount(1);
    await expect(page.getByText(/^Gathered/)).toBeVisible();

    // The dead client keeps its session and ephemeral until expiry; the frozen one falls silent.
    await dead.kill();
    stuck.freeze();
    await gatherUntil(async () => {
      await expect(view.sessionRow(deadId!)).toContainText('no connection', { timeout: 1_500 });
      await expect(view.sessionRow(stuckId!)).toContainText('silent', { timeout: 500 });
    }, 58_000);
    await settle(page, CHARTS_QUIET_MS);
    await page.screenshot({ path: docsShot('sessions-dark.png', (n) => info.outputPath(n)) });

    // `/` focuses the filter.
    await page.locator('body').press('/');
    await expect(view.sessionFilter).toBeFocused();
    await page.keyboard.type(deadId!);
    await expect(view.sessions.getByRole('row')).toHaveCount(2); // the header and the one session
    await page.keyboard.press('Escape');

    // A session's URL opens it expanded; its ephemerals link into the tree.
    await view.openSessions('default', deadId!);
    const row = view.sessionRow(deadId!);
    await expect(row).toHaveAttribute('aria-expanded', 'true');
    await expect(row).toContainText('Connected to no member');
    await row.getByRole('link', { name: `${root}/queue/worker-7` }).click();
    await expect(page).toHaveURL(/\/znodes\/e2e\//);
  } finally {
    await Promise.all(held.map((h) => h.kill()));
  }
});

test('sessions: opening the view after it sat idle gathers anew instead of showing old sessions', async ({ page }) => {
  // The server gathers on a read once its last gathering is a cadence old (60 s by default; the e2e
  // servers use 30 s, playwright.config.ts): the answer says which.
  test.setTimeout(180_000);
  const view = new EnsemblePage(page);
  await signIn(page);
  // Read first, before the view: this read is itself one that gathers when the last gathering (an
  // earlier spec's) is a cadence old, and waits for it. Read after the view, it could start a
  // gathering the view never showed, which the read after the idle time then found too young.
  const cadenceS = ((await (await page.request.get('/api/ensembles/default/sessions')).json()) as { cadenceSeconds?: number }).cadenceSeconds ?? 60;
  await view.openSessions('default');
  await expect(view.gatheredAt).toBeVisible();
  const first = await view.gatheredAtMs();

  // Somewhere else while the sessions grow older than the cadence; nothing reads them meanwhile. (Not
  // the Ensemble view: it keeps the sessions gathered each cadence for its request-herd alert.)
  await page.getByRole('link', { name: 'Tree' }).first().click();
  await expect(page).toHaveURL(/\/znodes\//);
  // Back just after the server would gather again (a cadence after the gathering began, and `first` is when it
  // ended), while the browser's copy is a moment short of due: the view re-reads when it falls due, not a
  // whole interval after it mounted.
  await page.waitForTimeout(Math.max(0, first + cadenceS * 1000 + 200 - Date.now()));

  // Back to Sessions (in-app, so the browser still holds the old answer): a fresh gathering arrives.
  const openedAt = Date.now();
  await page.getByRole('link', { name: 'Sessions' }).first().click();
  await expect(async () => expect(await view.gatheredAtMs()).toBeGreaterThanOrEqual(openedAt - 500)).toPass({ timeout: 10_000, intervals: [200] });
  await expect(view.gatheredAt).toHaveText(/^(just now|[0-3] s ago)$/);
});

test('watches: distinct paths counted from wchp, and the console’s own watches marked', async ({ page, context }, info) => {
  test.setTimeout(120_000);
  const root = testRoot(info.testId, info.retry);
  const watched = `${root}/config/db`;
  const opened = `${root}/config/opened-in-a-browser`;
  await kazoo(E2E_HOSTS, [
    { op: 'ensure', path: watched },
    { op: 'ensure', path: opened },
  ]);
  // Three clients on three members watch one path: wchs counts it once per member.
  const readers = await holdSessions(
    ADDRESSES.map((hosts) => ({ hosts, timeout: 30, watch: [watched] })),
    BUSY,
  );
  try {
    await signIn(page);
    // A browser with a znode open: the console's session holds a data watch on it.
    const tree = await context.newPage();
    await tree.goto(`/ensembles/default/znodes${opened}`);
    await expect(tree.getByText('opened-in-a-browser').first()).toBeVisible();

    const view = new EnsemblePage(page);
    await view.openWatches('default');
    const header = page.locator('.view-header__meta');
    const run = page.getByRole('button', { name: 'Watches by path (wchp)' });
    await expect(run).toBeEnabled({ timeout: 35_000 });
    await run.click();
    await page.getByRole('dialog', { name: 'Run wchp on every member?' }).getByRole('button', { name: 'Run wchp' }).click();
    const paths = page.getByRole('table', { name: 'Most watched paths' });
    await expect(paths).toContainText(watched, { timeout: 15_000 });
    // Distinct paths from wchp, where the sum over members counts the shared one three times.
    await expect(header).toContainText(/ on \d+ distinct paths? \(wchp\)/);
    await expect(page.getByRole('table', { name: 'Watches per member' })).toContainText(/\d+ distinct/);
    // The distinct count must not widen the table past a phone's width (it did, beside the sum).
    await page.setViewportSize({ width: 390, height: 844 });
    const box = await page.getByRole('table', { name: 'Watches per member' }).boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= 390, `table at 390 px: ${JSON.stringify(box)}`).toBe(true);
    await page.setViewportSize({ width: 1280, height: 720 });
    await expect(paths.getByRole('row').filter({ hasText: watched }).getByRole('cell').first()).toHaveText('3');
    // The console's own watch is marked, its session first.
    const mine = paths.getByRole('row').filter({ hasText: opened });
    await expect(mine).toContainText('console');
    await expect(paths.getByRole('row').filter({ hasText: watched })).not.toContainText('console');
    await expect(page.getByText(/marks Keeper’s own session, 0x[0-9a-f]+, which watches/)).toBeVisible();
    await tree.close();
  } finally {
    await readers.kill();
  }
});

test('the event timeline narrates the leader restarted through the sandbox, and every card shows its whole build', async ({ page }, info) => {
  test.setTimeout(120_000);
  const view = new EnsemblePage(page);
  await view.useTheme('dark');
  await signIn(page);
  await view.openMembers('default');
  await expect(view.members).toHaveCount(3);
  // The whole build string, not "3.8.0" alone: two builds of one release differ only after it.
  for (const address of ADDRESSES) await expect(view.member(address)).toContainText(/build 3\.\d+\.\d+\S*, built on \d{4}-\d\d-\d\d/);
  const timeline = page.getByRole('region', { name: 'Ensemble events' });
  await expect(timeline).toContainText("Times are when Keeper's member poller observed each change");

  // The leader restarted by the sandbox's own drill (the playwright.config state dir): an election Keeper must narrate.
  const leader = await leaderAddress(view);
  const members = (await (await page.request.get('/api/ensembles/default/members')).json()) as { members: { id: number; address: string }[] };
  const leaderId = members.members.find((m) => m.address === leader)!.id;
  // The timeline outlives Keeper restarts (its state dir), so earlier runs' elections may be listed: count the new ones.
  const showAll = timeline.getByRole('button', { name: /^show all \d+/ });
  const openAll = async () => {
    if (await showAll.isVisible()) await showAll.click();
  };
  const rows = (text: string | RegExp) => timeline.getByRole('listitem').filter({ hasText: text });
  const lostText = `leader ${leaderId} (${leader}) lost`;
  await openAll();
  const lostBefore = await rows(lostText).count();
  const electedBefore = await rows(/elected leader, epoch \d+→\d+/).count();
  // Back as a follower: its own entry, or, when the member restarted between two polls (a JVM
  // up in about a second), the loss's entry already saying what the poller saw next.
  const escaped = leader.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const backText = new RegExp(`member ${leaderId} \\(${escaped}\\) serving again as follower|leader ${leaderId} \\(${escaped}\\) lost: now follower`);
  const backBefore = await rows(backText).count();
  await runDrill(E2E_STATE_DIR, 'restart', leaderId, { timeoutMs: 60_000 });
  await expect(async () => {
    await openAll();
    await expect(rows(lostText)).toHaveCount(lostBefore + 1, { timeout: 1_000 });
    await expect(rows(/elected leader, epoch \d+→\d+/)).toHaveCount(electedBefore + 1, { timeout: 1_000 });
  }).toPass({ timeout: 40_000 });
  // Newest first: the first such row is this election's.
  await expect(rows(lostText).first()).toContainText(/^\d\d:\d\d:\d\dleader lost/);
  // Back to healthy before the shots (and for the specs after this one): 3 of 3, the followers synced.
  await expect(view.quorum).toContainText('3 of 3 voters serving', { timeout: 60_000 });
  const newLeader = await leaderAddress(view);
  await expect(view.member(newLeader)).toContainText(/synced followers\s*2 of 2/, { timeout: 60_000 });
  await expect(async () => {
    await openAll();
    await expect(rows(backText)).toHaveCount(backBefore + 1, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });

  // Tall enough for the cards and the latest entries below them (the view scrolls inside itself).
  await page.setViewportSize({ width: 1440, height: 1320 });
  await view.openMembers('default');
  await expect(timeline.getByRole('listitem').first()).toBeVisible();
  await settle(page, CHARTS_QUIET_MS);
  await page.screenshot({ path: docsShot('ensemble-events-dark.png', (n) => info.outputPath(n)) });
  await view.useTheme('light');
  await view.openMembers('default');
  await expect(timeline.getByRole('listitem').first()).toBeVisible();
  await settle(page, CHARTS_QUIET_MS);
  await page.screenshot({ path: docsShot('ensemble-events-light.png', (n) => info.outputPath(n)) });
  await page.setViewportSize({ width: 390, height: 844 });
  await timeline.scrollIntoViewIfNeeded();
  await settle(page, CHARTS_QUIET_MS);
  await page.screenshot({ path: docsShot('ensemble-events-phone.png', (n) => info.outputPath(n)) });
});
