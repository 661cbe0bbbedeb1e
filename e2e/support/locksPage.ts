/**
 * The Locks view as a page object: the list, a lock's contenders, and the admin's scan and clean
 * dialogs, by role where the markup gives one (the contender statuses are data attributes).
 */
import { expect, type Locator, type Page } from '@playwright/test';

export class LocksPage {
  readonly table: Locator;
  readonly contenders: Locator;
  readonly holderName: Locator;
  readonly holderTime: Locator;
  readonly leakedRow: Locator;
  readonly navLink: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Locks' });
    this.contenders = page.getByRole('table', { name: 'Contenders' });
    this.holderName = this.contender('holder').locator('.contender__name');
    this.holderTime = this.contender('holder').locator('.contender__time');
    this.leakedRow = this.contender('leaked');
    this.navLink = page.getByRole('navigation', { name: 'default views' }).getByRole('link', { name: 'Locks' });
  }

  async openList(ensemble = 'default'): Promise<void> {
    await this.page.goto(`/ensembles/${ensemble}/locks`);
  }

  async openLock(path: string, ensemble = 'default'): Promise<void> {
    await this.page.goto(`/ensembles/${ensemble}/locks${path}`);
  }

  /** The list's row of the lock directory at `path`. */
  lockRow(path: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('link', { name: path, exact: true }) });
  }

  /** The contender rows in one status (holder, waiting, leaked, persistent). */
  contender(status: string): Locator {
    return this.contenders.locator(`tr.contender[data-status="${status}"]`);
  }

  /** An admin's scan of `root` for lock directories, through the Scan dialog. */
  async scan(root: string): Promise<void> {
    await this.page.getByRole('button', { name: 'Scan for locks…' }).click();
    const scan = this.page.getByRole('dialog', { name: 'Scan for locks' });
    await scan.getByRole('textbox').fill(root);
    await scan.getByRole('button', { name: 'Start the scan' }).click();
  }

  get runningJobs(): Locator {
    return this.page.getByRole('complementary', { name: 'Running jobs' });
  }

  /** Opens Clean leaked with `root` filled in and returns the dialog. */
  async openClean(root: string): Promise<Locator> {
    await this.page.getByRole('button', { name: 'Clean leaked…' }).click();
    const clean = this.page.getByRole('dialog', { name: 'Clean leaked contenders' });
    await clean.getByRole('textbox').fill(root);
    return clean;
  }

  /** Cells of a contender row that the sticky Delete column lies over, as "row: column" (none is the goal). */
  async coveredByDelete(): Promise<string[]> {
    return this.page.evaluate(() => {
      const heads = Array.from(document.querySelectorAll('table[aria-label="Contenders"] thead th')).map((th) => th.textContent?.trim() ?? '');
      const covered: string[] = [];
      for (const row of Array.from(document.querySelectorAll('table[aria-label="Contenders"] tr.contender'))) {
        const sticky = row.querySelector('td.contender__actions:not(:empty)');
        if (!sticky) continue;
        const s = sticky.getBoundingClientRect();
        Array.from(row.children).forEach((cell, i) => {
          if (cell === sticky) return;
          const c = cell.getBoundingClientRect();
          if (c.right > s.left + 1 && c.left < s.right - 1) covered.push(`${row.querySelector('.contender__name')?.textContent}: ${heads[i]}`);
        });
      }
      return covered;
    });
  }

  /** The page never scrolls sideways: wide tables scroll inside their own box. */
  async expectNoPageOverflow(): Promise<void> {
    const overflow = await this.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  }
}
