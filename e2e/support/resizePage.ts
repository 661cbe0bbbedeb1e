/**
 * The resize page (from the sizing view) as a page object: the composer (members, lines to add,
 * the plan computed as it is typed), the stored workflow (its state, bar, steps, preflight, the
 * members to start, the buttons) and the history.
 */
import type { Locator, Page } from '@playwright/test';

export class ResizePage {
  readonly composer: Locator;
  readonly plan: Locator;
  readonly workflow: Locator;
  readonly progress: Locator;
  readonly steps: Locator;
  readonly joiners: Locator;
  readonly history: Locator;
  readonly sizingBlock: Locator;

  constructor(readonly page: Page) {
    this.composer = page.getByRole('form', { name: 'Plan a resize' });
    this.plan = this.composer.getByRole('region', { name: 'The plan' });
    this.workflow = page.getByRole('form', { name: 'The resize' });
    this.progress = this.workflow.getByRole('progressbar', { name: 'Resize progress' });
    this.steps = this.workflow.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    this.joiners = page.getByRole('region', { name: 'Members to start' });
    this.history = page.getByRole('region', { name: 'Resize history' });
    this.sizingBlock = page.getByRole('region', { name: 'Sizing' }).getByRole('region', { name: 'Resize' });
  }

  async openFromSizing(ensemble = 'default'): Promise<void> {
    await this.page.goto(`/ensembles/${ensemble}/members`);
    await this.sizingBlock.getByRole('link', { name: 'Plan a resize…' }).click();
  }

  /** The workflow's state word (planned, running, paused, done, failed, aborted). */
  state(): Locator {
    return this.workflow.locator('.resize-workflow__title .status');
  }

  button(name: string): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }
}
