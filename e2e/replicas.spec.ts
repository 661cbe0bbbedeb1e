/**
 * Issue 21 items 5 and 6 in Chromium: two Keeper replicas, each a process of its own (`npm start`
 * with a config holding "replicas"), on one real home ensemble (this lane's 3-member sandbox),
 * behind a real nginx running the shipped docs/nginx/keeper.conf (round robin, nothing sticky,
 * WebSocket proxying, TLS ending at nginx). The browser only ever talks to nginx.
 *
 * - The Replicas panel lists both, serving, with the elected poller (sharedPolling).
 * - A share link made on replica A and revoked on replica B: its holder's page is told at once and
 *   the link is refused on both.
 * - The replica holding the browser's socket is killed (SIGKILL): the page says it is not live for
 *   the whole gap (recorded in the page itself, so a half-second window cannot slip between
 *   Playwright's polls), then goes on through the other replica, signed in as before, never
 *   reloaded, and a znode written by a raw client (kazoo) appears. The panel then says the killed
 *   replica is not answering until ZooKeeper ends its session, and then no longer lists it.
 *
 * It runs in `e2e-alone`, after everything else, with nothing beside it: it times what the page
 * shows (a revocation on the other replica within 5 s: about 0.2 s on a quiet machine). Beside the
 * integration files and the other specs, at a load of 16 on 2 cores, the revocation crossing two
 * replicas and the home ensemble's watch took longer once (a fresh clone, 2026-12-07).
 *
 * A Playwright spec rather than a vitest test driving playwright-core: the e2e set-up already runs
 * spec-owned Keeper processes on their lane's sandbox (signInRestart.spec.ts), has the page objects
 * and the docs screenshots, and Playwright's retrying expectations suit what a page shows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext } from '@playwright/test';
import { kazoo } from '../scripts/lib/kazoo/index.js';
import { launchKeeper, type KeeperProcess } from '../scripts/lib/keeperProcess.js';
import { startNginx, type RunningNginx } from '../scripts/lib/nginx.js';
import { KEEPER_PORTS } from '../scripts/sandbox/portOffsets.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { AccessPage } from './support/accessPage.js';
import { TreePage } from './support/treePage.js';
import { ReplicasPage } from './support/replicasPage.js';
import { installRecorder, recordOf } from './support/socketRecorder.js';
import { docsShot, settle } from './support/screenshots.js';

const ADMIN = 'replicas-spec-admin-token-0123456789';
// Fixed: the lane's sandbox outlives a run, and a root made with another secret is refused.
const SECRET = 'replicas-spec-cluster-secret-0123456789-abcdefgh';
const ROOT = '/keeper/replicas-e2e';
/** The home ensemble's sessions: a killed replica stays registered (and polling, if it led) this long. */
const SESSION_TIMEOUT_MS = 10_000;
const PORTS = [KEEPER_PORTS.e2eReplicaA, KEEPER_PORTS.e2eReplicaB];
const NGINX = `https://127.0.0.1:${KEEPER_PORTS.e2eReplicasNginx}`;

async function api(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    redirect: 'manual',
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // a page
  }
  return { status: res.status, json };
}

/** Browser sockets open on one replica now, from its own /metrics (loopback). */
async function socketsOn(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^keeper_browsers_connected (\d+)/m.exec(text)?.[1] ?? NaN);
}

async function nginxContext(browser: Browser, theme: 'dark' | 'light', viewport = { width: 1440, height: 900 }): Promise<BrowserContext> {
  const context = await browser.newContext({ extraHTTPHeaders: {}, ignoreHTTPSErrors: true, viewport });
  // Only the first load: a page that switches theme and reloads keeps its choice.
  await context.addInitScript((t) => localStorage.getItem('keeper.theme') ?? localStorage.setItem('keeper.theme', t), theme);
  return context;
}

test('two replicas behind nginx: the panel lists them, a link revoked on the other is refused, and killing the browser’s replica costs a reconnect, not a sign-in', async ({
  browser,
}, info) => {
  test.setTimeout(240_000);
  const dir = mkdtempSync(join(tmpdir(), 'keeper-e2e-replicas-'));
  const config = join(dir, 'keeper.json');
  writeFileSync(
    config,
    JSON.stringify({
      ensembles: [{ name: 'home', connectionString: E2E_HOSTS, sessionTimeoutMs: SESSION_TIMEOUT_MS }],
      replicas: { stateEnsemble: 'home', root: ROOT, sharedPolling: true },
    }),
  );
  const env = { KEEPER_ADMIN_TOKEN: ADMIN, KEEPER_CLUSTER_SECRET: SECRET, KEEPER_TRUST_PROXY: 'loopback' };
  const launch = (port: number) => launchKeeper(['--config', config, '--port', String(port), '--data-dir', join(dir, `data-${port}`)], env);
  let replicas: KeeperProcess[] = [];
  let nginx: RunningNginx | null = null;
  const contexts: BrowserContext[] = [];
  try {
    replicas = await Promise.all(PORTS.map(launch));
    const ids = await Promise.all(
      replicas.map(async (r) => {
        // Registered once the state session is up: 503 until then.
        await expect.poll(async () => (await api(r.url, 'GET', '/api/replicas')).status, { timeout: 30_000 }).toBe(200);
        return ((await api(r.url, 'GET', '/api/replicas')).json.replicas as { id: string; self: boolean }[]).find((x) => x.self)!.id;
      }),
    );
    nginx = await startNginx(
      dir,
      KEEPER_PORTS.e2eReplicasNginx,
      PORTS.map((p) => `127.0.0.1:${p}`),
    );
    const node = `${testRoot(info.testId, info.retry)}/live`;
    await kazoo(E2E_HOSTS, [{ op: 'create', path: node, data: 'before the kill' }]);

    await test.step('the Replicas panel lists both replicas serving, one polling for all', async () => {
      const context = await nginxContext(browser, 'dark');
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(`${NGINX}/audit/replicas`);
      await expect(page).toHaveURL(/\/login\?next=/);
      await new AccessPage(page).signInWithToken(ADMIN);
      const panel = new ReplicasPage(page);
      for (const id of ids) await expect(panel.health(id)).toHaveText('serving', { timeout: 10_000 });
      await expect(panel.table.getByText('polls the members for all')).toHaveCount(1);
      // Round robin: whichever replica answered the last refresh says so in the status line.
      await expect(panel.live).toContainText(new RegExp(`live.*answered by \\S+:(${PORTS.join('|')})`));
      await settle(page);
      await page.screenshot({ path: docsShot('replicas-dark.png', (n) => info.outputPath(n)) });
      // The Audit table at 1,280 px (a laptop): its last column, Outcome, was cut off there. Both
      // replicas' entries are listed, each with its replica.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole('link', { name: 'Audit trail' }).click();
      const outcome = page.getByRole('columnheader', { name: 'Outcome' });
      await expect(
        page
          .getByRole('table', { name: 'Audit entries' })
          .getByText(/^on \S+:\d+$/)
          .first(),
      ).toBeVisible();
      const head = await outcome.boundingBox();
      expect(head!.x + head!.width, 'the Outcome column ends inside the window').toBeLessThanOrEqual(1280);
      const cell = page.locator('.acell--outcome .status').first();
      expect(await cell.evaluate((el) => el.getBoundingClientRect().right <= (el.closest('.acell') as HTMLElement).getBoundingClientRect().right)).toBe(true);
      await settle(page);
      await page.screenshot({ path: docsShot('audit-1280-dark.png', (n) => info.outputPath(n)) });
      await page.setViewportSize({ width: 1440, height: 900 });
      await panel.tab.click();
      await expect(panel.table).toBeVisible();
      // Keyboard: the admin tabs are links in order; Enter on "Audit trail" leaves, on "Replicas" comes back.
      await page.getByRole('link', { name: 'Audit trail' }).focus();
      await page.keyboard.press('Enter');
      await expect(page).toHaveURL(/\/audit$/);
      await panel.tab.focus();
      await page.keyboard.press('Enter');
      await expect(panel.table).toBeVisible();
      await page.evaluate(() => localStorage.setItem('keeper.theme', 'light'));
      await page.reload();
      await expect(panel.health(ids[0]!)).toHaveText('serving');
      await settle(page);
      await page.screenshot({ path: docsShot('replicas-light.png', (n) => info.outputPath(n)) });
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(panel.health(ids[1]!)).toBeVisible();
      // A phone: each replica a block, nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await settle(page);
      await page.screenshot({ path: docsShot('replicas-phone-light.png', (n) => info.outputPath(n)), fullPage: true });
      await context.close();
    });

    await test.step('a share link made on replica A and revoked on replica B is refused', async () => {
      const [a, b] = replicas as [KeeperProcess, KeeperProcess];
      const made = await api(a.url, 'POST', '/api/share-links', { path: `/ensembles/home/znodes${node}`, expiresInMinutes: 60, note: 'replicas spec' });
      expect(made.status, JSON.stringify(made.json)).toBe(201);
      const token = new URL(made.json.url as string).pathname.split('/').pop()!;
      const context = await nginxContext(browser, 'dark');
      contexts.push(context);
      const holder = await context.newPage();
      await holder.goto(`${NGINX}/share/${token}`);
      await expect(new TreePage(holder).data).toContainText('before the kill');
      const revoked = await api(b.url, 'DELETE', `/api/share-links/${made.json.id as string}`);
      expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
      await expect(holder.getByRole('alert')).toContainText('This read-only link was revoked', { timeout: 5_000 });
      // Refused everywhere: through nginx, and by each replica asked directly.
      for (const url of [NGINX, a.url, b.url]) {
        const res = await context.request.get(`${url}/share/${token}`, { maxRedirects: 0 });
        expect(res.status(), url).toBe(410);
      }
      await context.close();
    });

    await test.step('SIGKILL of the replica holding the socket: not live during the gap, then live through the other, same identity, no reload', async () => {
      const context = await nginxContext(browser, 'dark');
      contexts.push(context);
      await installRecorder(context);
      const page = await context.newPage();
      const tree = new TreePage(page);
      const ui = new AccessPage(page);
      await page.goto(`${NGINX}/ensembles/home/znodes${node}`);
      await ui.signInWithToken(ADMIN);
      await expect(tree.data).toContainText('before the kill');
      await expect(ui.user).toContainText('admin-token');

      // Which replica holds the page's one socket (the other pages are closed).
      await expect.poll(async () => (await Promise.all(replicas.map((r) => socketsOn(r.url)))).join(','), { timeout: 10_000 }).toMatch(/^(1,0|0,1)$/);
      const counts = await Promise.all(replicas.map((r) => socketsOn(r.url)));
      const holderIndex = counts.indexOf(1);
      const holder = replicas[holderIndex]!;
      const survivor = replicas[1 - holderIndex]!;
      const killedId = ids[holderIndex]!;
      const before = await recordOf(page);
      const killedAt = Date.now();
      await holder.stop('SIGKILL');
      await kazoo(E2E_HOSTS, [{ op: 'set', path: node, data: 'written by kazoo after the kill' }]);
      await expect(tree.data).toContainText('written by kazoo after the kill', { timeout: 15_000 });
      await expect(page).toHaveURL(new RegExp(`/ensembles/home/znodes${node}$`));
      await expect(ui.user).toContainText('admin-token');
      await expect.poll(() => socketsOn(survivor.url)).toBe(1);

      // The page's own record: the same page (nothing before the kill lost: no reload), one drop,
      // the banner up within 1 s of it and never down before the new socket's welcome.
      const record = await recordOf(page);
      expect(record.slice(0, before.length)).toEqual(before);
      const close = record.find((r) => r.kind === 'ws-close' && r.t >= killedAt - 50);
      expect(close, JSON.stringify(record.slice(before.length))).toBeTruthy();
      const welcome = record.find((r) => r.kind === 'ws-welcome' && r.t > close!.t);
      expect(welcome, JSON.stringify(record.slice(before.length))).toBeTruthy();
      const uiBefore = record.filter((r) => r.kind === 'ui' && r.t <= close!.t).at(-1);
      expect(uiBefore?.banner ?? '', 'live before the kill').toBe('');
      const gapUi = record.filter((r) => r.kind === 'ui' && r.t > close!.t && r.t < welcome!.t);
      expect(gapUi.length, JSON.stringify(record.slice(before.length))).toBeGreaterThan(0);
      const shown = gapUi[0]!;
      expect(shown.banner).toContain('no server link');
      expect(shown.banner).toMatch(/Lost the Keeper server at \d\d:\d\d:\d\d/);
      expect(shown.t - close!.t).toBeLessThan(1_000);
      for (const state of gapUi) expect(state.banner, 'not live all through the gap').toContain('no server link');
      const figures = `socket closed ${Math.round(close!.t - killedAt)} ms after the kill; banner after ${Math.round(shown.t - close!.t)} ms; welcomed by the other replica ${Math.round(welcome!.t - close!.t)} ms after the close`;
      info.annotations.push({ type: 'failover', description: figures });
      console.log(`failover: ${figures}`);
      await expect.poll(async () => (await recordOf(page)).filter((r) => r.kind === 'ui').at(-1)?.banner ?? '').toBe('');

      // The panel, reached by keyboard from the tree: the killed replica is not answering while
      // ZooKeeper still holds its session, never "serving"; then it is gone.
      const panel = new ReplicasPage(page);
      await ui.auditNav.focus();
      await page.keyboard.press('Enter');
      await panel.tab.focus();
      await page.keyboard.press('Enter');
      await expect(panel.health(ids[1 - holderIndex]!)).toHaveText('serving');
      const killedRow = panel.row(killedId);
      if (Date.now() - killedAt < SESSION_TIMEOUT_MS - 2_000) {
        await expect(panel.health(killedId)).toHaveText('not answering');
        await expect(killedRow).toContainText(/cannot reach http:\/\/127\.0\.0\.1:\d+ from this replica/);
        // Still elected (its candidate lives with its session) if it polled, but never said to be polling.
        await expect(killedRow).not.toContainText('polls the members for all');
        await settle(page);
        await page.screenshot({ path: docsShot('replicas-killed-dark.png', (n) => info.outputPath(n)) });
      }
      await expect(killedRow).toHaveCount(0, { timeout: SESSION_TIMEOUT_MS + 10_000 });
      await expect(panel.table.getByText('polls the members for all')).toHaveCount(1, { timeout: 10_000 });
    });
  } finally {
    for (const context of contexts) await context.close().catch(() => undefined);
    nginx?.stop();
    await Promise.all(replicas.map((r) => r.stop('SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  }
});
