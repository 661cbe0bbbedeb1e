/**
 * On-call people look from phones: every view reads at a phone's width, with no sideways
 * scrolling of the page, the session state in view, and the navigation in a drawer.
 */
import { expect, test, type Page } from '@playwright/test';
import { useTheme } from './support/accessPage.js';
import { docsShot, settle } from './support/screenshots.js';

test.use({ viewport: { width: 390, height: 844 } });

/** What must be whole on screen, not clipped into a sideways scroll: the figures on-call came for. */
const VIEWS: { name: string; url: string; ready: RegExp; mustFit?: (page: Page) => ReturnType<Page['getByRole']> }[] = [
  { name: 'members', url: '/ensembles/default/members', ready: /voters serving/ },
  // The header's "N sessions" summary is hidden on phones: wait for the gathering line instead.
  { name: 'sessions', url: '/ensembles/default/sessions', ready: /Gathered/ },
  { name: 'watches', url: '/ensembles/default/watches', ready: /watches/i, mustFit: (page) => page.getByRole('table', { name: 'Watches per member' }) },
  { name: 'audit', url: '/audit', ready: /audit/i },
];

/** Buttons whose text has the colour of their own background (two stylesheets fighting over one class). */
function unreadableButtons(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('button'))
      .filter((b) => b.offsetParent !== null && (b.textContent ?? '').trim() !== '')
      .filter((b) => {
        const style = getComputedStyle(b);
        return style.backgroundColor !== 'rgba(0, 0, 0, 0)' && style.color === style.backgroundColor;
      })
      .map((b) => (b.textContent ?? '').trim()),
  );
}

for (const view of VIEWS) {
  test(`the ${view.name} view at a phone's width`, async ({ page }, info) => {
    await useTheme(page, 'dark');
    await page.goto(view.url);
    await expect(page.getByRole('main').getByText(view.ready).first()).toBeVisible();
    await expect(page.getByRole('button', { name: /^Console session:/ })).toBeInViewport();
    await settle(page, 600);
    await page.screenshot({ path: docsShot(`phone-${view.name}-dark.png`, (n) => info.outputPath(n)) });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    if (view.mustFit) {
      const box = await view.mustFit(page).boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, `${view.name}: ${JSON.stringify(box)}`).toBe(true);
    }
    expect(await unreadableButtons(page)).toEqual([]);
  });
}
