/** Screenshots the docs show: where they go, and waiting until the page is still. */
import { join } from 'node:path';
import type { Page } from '@playwright/test';

/** docs/<name> with KEEPER_DOCS_SCREENSHOTS=1 (the screenshots the docs show), else the test's output folder. */
export function docsShot(name: string, outputPath: (name: string) => string): string {
  return process.env.KEEPER_DOCS_SCREENSHOTS === '1' ? join('docs', name) : outputPath(name);
}

/** Waits for fonts and for nothing to move (longer where charts draw their first points). */
export async function settle(page: Page, quietMs = 400): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(quietMs);
}
