/** Screenshots the docs show: where they go, and waiting until the page is still. */
import { join } from 'node:path';
import type { Page } from '@playwright/test';

/** KEEPER_DOCS_SCREENSHOTS=1: taking the pictures (docs/screenshots/, and the variants below). */
export const DOCS_SCREENSHOTS = process.env.KEEPER_DOCS_SCREENSHOTS === '1';

/** docs/screenshots/<name> with KEEPER_DOCS_SCREENSHOTS=1 (the screenshots the docs show), else the test's output folder. */
export function docsShot(name: string, outputPath: (name: string) => string): string {
  return DOCS_SCREENSHOTS ? join('docs', 'screenshots', name) : outputPath(name);
}

/**
 * The variants a test runs: all of them with KEEPER_DOCS_SCREENSHOTS=1, else those that check
 * something of their own. A variant marked `screenshotOnly` repeats another's checks in the other
 * theme at the same width, for its picture alone (a width of its own is a layout check, and runs).
 */
export function checkedVariants<T extends { screenshotOnly?: boolean }>(all: readonly T[]): T[] {
  return all.filter((v) => DOCS_SCREENSHOTS || !v.screenshotOnly);
}

/** Waits for fonts and for nothing to move (longer where charts draw their first points). */
export async function settle(page: Page, quietMs = 400): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(quietMs);
}
