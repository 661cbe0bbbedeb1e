/**
 * The tree explorer as an operator drives it: from the keyboard (`?` lists the shortcuts, `/`
 * filters the children, arrows move in the tree, Enter opens), in both themes, and at a phone's
 * width for on-call people. The screenshots are the docs' tree-*.png with
 * KEEPER_DOCS_SCREENSHOTS=1.
 */
import { expect, test, type Page } from '@playwright/test';
import { kazoo, type KazooOp } from '../scripts/lib/kazoo/index.js';
import { E2E_HOSTS } from './support/ensemble.js';
import { TreePage } from './support/treePage.js';
import { useTheme } from './support/accessPage.js';
import { docsShot, settle } from './support/screenshots.js';

test.use({ viewport: { width: 1440, height: 900 } });

/** This spec's own showcase under /app (see access.spec.ts: each spec owns one fixed path there). */
const SHOWCASE = '/app/services';
const PAYMENTS = `${SHOWCASE}/payments`;
const INSTANCES = ['api-0', 'api-1', 'api-2', 'api-10', 'worker-0', 'worker-1', 'worker-2', 'scheduler-0'];
const PAYMENTS_CONFIG = {
  service: 'payments',
  replicas: 3,
  endpoints: { grpc: 'payments.internal:7443', http: 'payments.internal:8443' },
  rateLimit: { perSecond: 1200, burst: 300 },
  featureFlags: ['idempotency-keys', 'sca-v2'],
  owner: 'payments-oncall',
};

async function seedShowcase(): Promise<void> {
  const ops: KazooOp[] = [
    { op: 'ensure', path: SHOWCASE },
    { op: 'delete', path: SHOWCASE, recursive: true },
    { op: 'create', path: PAYMENTS, data: JSON.stringify(PAYMENTS_CONFIG) },
    ...INSTANCES.map((name): KazooOp => ({ op: 'create', path: `${PAYMENTS}/${name}`, data: `10.0.3.${INSTANCES.indexOf(name) + 11}:8443` })),
    { op: 'create', path: `${SHOWCASE}/ledger`, data: '{"service":"ledger","replicas":5}' },
    { op: 'create', path: `${SHOWCASE}/search`, data: '{"service":"search","replicas":2}' },
  ];
  await kazoo(E2E_HOSTS, ops);
}

/** A fresh showcase, opened at /app/services/payments in `theme`, once its data and children show. */
async function openPayments(page: Page, theme: 'dark' | 'light'): Promise<TreePage> {
  await seedShowcase();
  await useTheme(page, theme);
  const tree = new TreePage(page);
  await tree.open('default', PAYMENTS);
  await expect(tree.data).toContainText('"service": "payments"');
  await expect(tree.children).toContainText('scheduler-0');
  return tree;
}

const treeItem = (page: Page, name: string) => page.getByRole('tree').getByRole('treeitem', { name, exact: true });

test('the explorer from the keyboard: ? lists the shortcuts, / filters the children, arrows and Enter move in the tree', async ({ page }, info) => {
  const tree = await openPayments(page, 'dark');

  // `?` lists the shortcuts; Esc closes the list.
  await page.keyboard.press('?');
  const shortcuts = page.getByRole('dialog');
  await expect(shortcuts).toContainText('Focus the filter');
  await expect(shortcuts).toContainText('Move in the tree');
  await page.keyboard.press('Escape');
  await expect(shortcuts).toBeHidden();

  // `/` focuses the children filter; typing narrows the list and says how much is shown.
  await page.keyboard.press('/');
  const filter = page.getByRole('searchbox', { name: 'Filter children' });
  await expect(filter).toBeFocused();
  await page.keyboard.type('api');
  await expect(tree.children.getByRole('listitem')).toHaveText(['api-0', 'api-1', 'api-2', 'api-10']);
  await expect(page.getByText('showing 4 of 8')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(tree.children.getByRole('listitem')).toHaveCount(INSTANCES.length);

  // In the tree (a deep link opens with its node expanded): left collapses, right expands, right
  // again goes into the first child, down moves, Enter opens.
  await treeItem(page, 'payments').focus();
  await page.keyboard.press('ArrowLeft');
  await expect(treeItem(page, 'payments')).toHaveAttribute('aria-expanded', 'false');
  await expect(treeItem(page, 'api-0')).toHaveCount(0);
  await page.keyboard.press('ArrowRight');
  await expect(treeItem(page, 'payments')).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('ArrowRight'); // into its first child, naturally sorted
  await expect(treeItem(page, 'api-0')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(treeItem(page, 'api-10')).toBeFocused(); // 2 before 10: natural order
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/ensembles\/default\/znodes\/app\/services\/payments\/api-10$/);
  await expect(tree.data).toContainText('10.0.3.14:8443');
  // Left goes back to the parent without opening it; the URL stays on what was opened.
  await page.keyboard.press('ArrowLeft');
  await expect(treeItem(page, 'payments')).toBeFocused();
  await expect(page).toHaveURL(/api-10$/);

  await tree.open('default', PAYMENTS);
  await expect(tree.data).toContainText('"owner": "payments-oncall"');
  await settle(page);
  await page.screenshot({ path: docsShot('tree-dark.png', (n) => info.outputPath(n)) });
});

test('the explorer in the light theme, and at a phone’s width', async ({ page }, info) => {
  const tree = await openPayments(page, 'light');
  await settle(page);
  await page.screenshot({ path: docsShot('tree-light.png', (n) => info.outputPath(n)) });

  // On a phone the same znode reads without sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(tree.data).toContainText('"service": "payments"');
  await expect(tree.sessionBadge).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // The session state is whole, not clipped by the other controls.
  const badge = await tree.sessionBadge.boundingBox();
  expect(badge && badge.x >= 0 && badge.x + badge.width <= 390).toBe(true);
  await settle(page);
  await page.screenshot({ path: docsShot('tree-phone-light.png', (n) => info.outputPath(n)), fullPage: true });

  // The navigation is a drawer behind the menu button, out of the way (and out of Tab order) until opened.
  const nav = page.getByRole('navigation', { name: 'default views' });
  await expect(nav).toBeHidden();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  await nav.getByRole('link', { name: 'Ensemble' }).click();
  await expect(page).toHaveURL(/\/ensembles\/default\/members$/);
  await expect(page.getByText(/voters serving/).first()).toBeVisible();
});
