/** The admin area's Replicas panel (/audit/replicas). */
import type { Locator, Page } from '@playwright/test';

export class ReplicasPage {
  readonly table: Locator;
  readonly tab: Locator;
  readonly live: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Replicas' });
    this.tab = page.getByRole('link', { name: 'Replicas', exact: true });
    this.live = page.getByTestId('replicas-live');
  }

  /** The row of one replica, by its id. */
  row(id: string): Locator {
    return this.table.locator(`tr[data-replica="${id}"]`);
  }

  health(id: string): Locator {
    return this.row(id).locator('td[data-label="Health"] .status');
  }
}
