/** The "go to path" box as a page object: role-based locators only. */
import type { Locator, Page } from '@playwright/test';

export class GoToBox {
  readonly dialog: Locator;
  readonly input: Locator;
  readonly completions: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByRole('dialog', { name: 'Go to path' });
    this.input = this.dialog.getByRole('combobox', { name: 'Znode path' });
    this.completions = this.dialog.getByRole('listbox', { name: 'Completions' }).getByRole('option');
    this.status = this.dialog.locator('.goto__status');
  }
}
