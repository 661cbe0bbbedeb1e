/**
 * "Go to path": an on-call engineer presses `g`, pastes or types a znode path with the children
 * of each level offered as they type, and lands there, from the keyboard or on a phone. A share
 * link's holder is offered only the way into its scope and what lies below: the page never asks
 * the server for a list above it. Screenshots (dark, light, phone) go to the test's output folder,
 * or docs/screenshots/ with KEEPER_DOCS_SCREENSHOTS=1.
 */
import { expect, test, type Page, type WebSocket } from '@playwright/test';
import { kazoo, type KazooOp } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS, testRoot } from './support/ensemble.js';
import { anonymousContext, useTheme } from './support/accessPage.js';
import { GoToBox } from './support/goToBox.js';
import { docsShot, settle } from './support/screenshots.js';
import { TreePage } from './support/treePage.js';

test.use({ viewport: { width: 1440, height: 900 } });

/** This spec's own showcase under /app (each spec owns one fixed path there). */
const BILLING = '/app/billing';
const TARGET = `${BILLING}/locks/x`;

async function seedBilling(): Promise<void> {
  const ops: KazooOp[] = [
    { op: 'ensure', path: BILLING },
    { op: 'delete', path: BILLING, recursive: true },
    { op: 'create', path: TARGET, data: '{"holder":"worker-7","since":"07:31:02"}' },
    { op: 'create', path: `${BILLING}/locks/invoice-run`, data: '' },
    { op: 'create', path: `${BILLING}/locks/ledger-close`, data: '' },
    { op: 'create', path: `${BILLING}/ledger`, data: '{"currency":"EUR"}' },
    { op: 'create', path: `${BILLING}/leader`, data: 'worker-3' },
    { op: 'create', path: `${BILLING}/invoices`, data: '' },
    { op: 'ensure', path: '/app/bigdata' },
  ];
  await kazoo(E2E_HOSTS, ops);
}

const urlOf = (path: string) => new RegExp(`/ensembles/default/znodes${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

test('g, then type with completion level by level, lands on the znode; a pasted path or URL goes straight there', async ({ page }, info) => {
  await seedBilling();
  await useTheme(page, 'dark');
  const tree = new TreePage(page);
  await tree.open('default', '/');
  await expect(tree.children).toContainText('app');
  const box = new GoToBox(page);

  // `?` lists it.
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText('Go to a znode path');
  await page.keyboard.press('Escape');

  // `g` opens the box on the znode shown; what is typed replaces it.
  await page.keyboard.press('g');
  await expect(box.input).toBeFocused();
  await expect(box.input).toHaveValue('/');
  await page.keyboard.type('ap');
  await expect(box.completions.first()).toHaveText('/app');
  // Tab completes a level and offers the next one's children.
  await page.keyboard.press('Tab');
  await expect(box.input).toHaveValue('/app/');
  await page.keyboard.type('bi');
  await expect(box.completions).toHaveText(['/app/bigdata', '/app/billing']);
  await page.keyboard.type('l');
  await expect(box.completions).toHaveText(['/app/billing']);
  await page.keyboard.press('Tab');
  await expect(box.input).toHaveValue('/app/billing/');
  await expect(box.completions).toHaveText([`${BILLING}/invoices`, `${BILLING}/leader`, `${BILLING}/ledger`, `${BILLING}/locks`]);
  await page.keyboard.type('l');
  await expect(box.completions).toHaveText([`${BILLING}/leader`, `${BILLING}/ledger`, `${BILLING}/locks`]);
  // Arrows choose; the choice is what Tab fills in.
  await page.keyboard.press('ArrowUp');
  await expect(box.completions.nth(2)).toHaveAttribute('aria-selected', 'true');
  await expect(box.status).toHaveText(`3 of 4 children of ${BILLING} match`);
  await settle(page);
  await page.screenshot({ path: docsShot('goto-dark.png', (n) => info.outputPath(n)) });
  await page.keyboard.press('Tab');
  await expect(box.input).toHaveValue(`${BILLING}/locks/`);
  await page.keyboard.type('x');
  await page.keyboard.press('Enter');
  await expect(box.dialog).toBeHidden();
  await expect(page).toHaveURL(urlOf(TARGET));
  await expect(tree.data).toContainText('"holder": "worker-7"');

  // Pasted whole, as from an incident channel, it goes there with one Enter.
  await page.keyboard.press('g');
  await expect(box.input).toHaveValue(`${TARGET}/`);
  await page.keyboard.insertText(`${BILLING}/ledger`);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(urlOf(`${BILLING}/ledger`));
  await expect(tree.data).toContainText('"currency": "EUR"');
  // A Keeper URL is read as the path it opens.
  await page.keyboard.press('g');
  await page.keyboard.insertText(`http://keeper.example:8080/ensembles/default/znodes${BILLING}/leader`);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(urlOf(`${BILLING}/leader`));

  // A path that is not one says why and stays.
  await page.keyboard.press('g');
  await page.keyboard.insertText('/app//x');
  await page.keyboard.press('Enter');
  await expect(box.dialog.getByRole('alert')).toHaveText('path has an empty segment (//)');
  await page.keyboard.press('Escape');
  await expect(box.dialog).toBeHidden();
  await expect(page).toHaveURL(urlOf(`${BILLING}/leader`));
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test('in the light theme: the top bar’s button opens the box, a tap completes', async ({ page }, info) => {
    await seedBilling();
    await useTheme(page, 'light');
    const tree = new TreePage(page);
    await tree.open('default', BILLING);
    await expect(tree.data).toBeVisible();
    const box = new GoToBox(page);
    // The go-to button leaves the session badge its whole state word (the theme toggle moves into the drawer).
    const badge = page.getByRole('button', { name: /^Console session:/ });
    await expect(badge).toContainText('connected');
    expect(await badge.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.screenshot({ path: info.outputPath('phone-topbar.png') });
    await page.getByRole('button', { name: 'Open navigation' }).tap();
    await expect(page.getByRole('button', { name: 'Switch to dark theme' })).toBeVisible();
    await page.screenshot({ path: info.outputPath('phone-drawer.png') });
    await page.getByRole('button', { name: 'Close navigation' }).tap({ position: { x: 360, y: 400 } });
    await page.getByRole('button', { name: 'Go to path' }).tap();
    await expect(box.input).toHaveValue(`${BILLING}/`);
    await expect(box.completions).toHaveCount(4);
    await box.completions.filter({ hasText: 'locks' }).tap();
    await expect(box.input).toHaveValue(`${BILLING}/locks/`);
    await expect(box.completions).toHaveText([`${BILLING}/locks/invoice-run`, `${BILLING}/locks/ledger-close`, TARGET]);
    await expect(box.status).toHaveText(`3 children of ${BILLING}/locks`);
    await settle(page);
    await page.screenshot({ path: docsShot('goto-phone-light.png', (n) => info.outputPath(n)) });
    await box.completions.last().tap();
    await box.dialog.getByRole('button', { name: 'Go' }).tap();
    await expect(page).toHaveURL(urlOf(TARGET));
    await expect(tree.data).toContainText('"holder": "worker-7"');

    // The light theme at a laptop's width, for the docs.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press('g');
    await page.keyboard.insertText(`${BILLING}/le`);
    await expect(box.completions).toHaveText([`${BILLING}/leader`, `${BILLING}/ledger`]);
    await settle(page);
    await page.screenshot({ path: docsShot('goto-light.png', (n) => info.outputPath(n)) });
  });
});

/** The paths of every znode subscription a page sends on its socket. */
function subscribedPaths(page: Page): string[] {
  const paths: string[] = [];
  page.on('websocket', (ws: WebSocket) =>
    ws.on('framesent', ({ payload }) => {
      const message = JSON.parse(String(payload)) as { type?: string; topic?: string; params?: { path?: string } };
      if (message.type === 'subscribe' && message.topic === 'znode' && message.params?.path) paths.push(message.params.path);
    }),
  );
  return paths;
}

test('a share link’s holder is offered the way into its scope and what is below it, never a list above it', async ({ browser, request }, info) => {
  const root = testRoot(info.testId, info.retry);
  await kazoo(E2E_HOSTS, [
    { op: 'create', path: `${root}/app/db/schema`, data: 'v42' },
    { op: 'create', path: `${root}/app/db/replicas`, data: '2' },
    { op: 'create', path: `${root}/app/secrets`, data: 'not for the holder' },
    { op: 'create', path: `${root}/app/dbx`, data: 'a sibling whose name starts the same' },
  ]);
  const created = await request.post('/api/share-links', {
    data: { path: `/ensembles/default/znodes${root}/app/db/schema`, expiresInMinutes: 60, scope: { root: `${root}/app/db` } },
  });
  expect(created.status()).toBe(201);
  const { url } = (await created.json()) as { url: string };

  const holder = await (await anonymousContext(browser, 'dark')).newPage();
  const asked = subscribedPaths(holder);
  await holder.goto(url);
  const tree = new TreePage(holder);
  await expect(tree.data).toContainText('v42');
  const box = new GoToBox(holder);

  await holder.keyboard.press('g');
  await expect(box.input).toHaveValue(`${root}/app/db/schema/`);
  // From the top: only the way into the scope.
  await box.input.fill('/');
  await expect(box.completions).toHaveText([`${root}/app/db`]);
  await expect(box.status).toHaveText(`This link reaches ${root}/app/db and below.`);
  await box.input.fill(`${root}/app/`);
  await expect(box.completions).toHaveText([`${root}/app/db`]);
  await box.input.fill(`${root}/app/s`);
  await expect(box.completions).toHaveCount(0);
  await expect(box.status).toHaveText(`Outside this link's scope: it reaches ${root}/app/db and below.`);
  // Inside the scope, its children as for anyone.
  await box.input.fill(`${root}/app/db/`);
  await expect(box.completions).toHaveText([`${root}/app/db/replicas`, `${root}/app/db/schema`]);
  // Going above it is refused in the box, not by a failed page.
  await box.input.fill(`${root}/app/secrets`);
  await holder.keyboard.press('Enter');
  await expect(box.dialog.getByRole('alert')).toHaveText(`outside this link's scope: ${root}/app/db and below`);
  await expect(holder).toHaveURL(/\/schema$/);
  // The page never asked the server for anything above the scope (the server would refuse it anyway).
  expect(asked.filter((p) => p !== `${root}/app/db` && !p.startsWith(`${root}/app/db/`))).toEqual([]);
  expect(asked).toContain(`${root}/app/db`);
  await holder.context().close();
});
