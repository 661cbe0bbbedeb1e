/** The tree explorer as a page object: role-based locators only, so markup can move freely. */
import type { Locator, Page } from '@playwright/test';

export class TreePage {
  readonly sessionBadge: Locator;
  readonly data: Locator;
  readonly stat: Locator;
  readonly children: Locator;
  readonly watchEvents: Locator;
  readonly deletedBanner: Locator;

  constructor(readonly page: Page) {
    this.sessionBadge = page.getByRole('button', { name: /^Console session:/ });
    this.data = page.getByRole('region', { name: 'Znode data' });
    this.stat = page.getByRole('table', { name: 'Znode stat' });
    this.children = page.getByRole('list', { name: 'Children' });
    this.watchEvents = page.getByRole('region', { name: 'Watch events' });
    this.deletedBanner = page.getByRole('status').filter({ hasText: /no longer exists/i });
  }

  async open(ensemble: string, path: string): Promise<void> {
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    await this.page.goto(`/ensembles/${encodeURIComponent(ensemble)}/znodes${encoded}`);
  }
}
