/**
 * The Upgrades view as a page object: the plan, the running workflow's sentence and step cards,
 * the paused alert and the history, plus the admin's abort of what an earlier run left.
 */
import { expect, type Locator, type Page } from '@playwright/test';

export class UpgradesPage {
  readonly sentence: Locator;
  readonly plan: Locator;
  readonly paused: Locator;
  /** The step card of the member being worked on. */
  readonly currentStep: Locator;
  readonly steps: Locator;
  readonly history: Locator;
  readonly navLink: Locator;

  constructor(readonly page: Page) {
    this.sentence = page.locator('.upgrade-progress__sentence');
    this.plan = page.getByRole('form', { name: 'The plan' });
    this.paused = page.getByRole('alert').filter({ hasText: 'The upgrade is paused' });
    this.currentStep = page.locator('article[aria-current="step"]');
    this.steps = page.getByRole('region', { name: 'The upgrade' }).getByRole('article');
    this.history = page.getByRole('region', { name: 'History' });
    this.navLink = page.getByRole('navigation', { name: 'default views' }).getByRole('link', { name: 'Upgrades' });
  }

  async open(ensemble = 'default'): Promise<void> {
    await this.page.goto(`/ensembles/${ensemble}/upgrades`);
  }

  /** A row of the history whose state cell reads `state` exactly. */
  historyRow(state: string): Locator {
    return this.history
      .getByRole('row')
      .filter({ has: this.page.getByRole('cell', { name: state, exact: true }) })
      .first();
  }

  /** Upgrades are durable: one left planned, running or paused by an earlier run (or a retry) is aborted first. */
  async abortUnfinished(ensemble = 'default'): Promise<void> {
    const url = `/api/ensembles/${ensemble}/upgrades`;
    // Keeper reads the upgrades once it knows the ensemble's identity (503 NOT_READY until its first poll).
    await expect.poll(async () => (await this.page.request.get(url)).status(), { timeout: 30_000 }).toBe(200);
    const list = await this.page.request.get(url);
    expect(list.status()).toBe(200);
    const { upgrades } = (await list.json()) as { upgrades: { id: string; state: string }[] };
    for (const u of upgrades.filter((x) => ['planned', 'running', 'paused'].includes(x.state))) {
      const res = await this.page.request.post(`${url}/${u.id}/abort`, { data: { reason: 'left by an earlier e2e run' } });
      expect(res.status(), await res.text()).toBe(200);
    }
  }

  /** Skips the step on `card` through its dialog, typing the phrase the dialog names. */
  async skipStep(card: Locator): Promise<void> {
    await card.getByRole('button', { name: /^Skip .*…$/ }).click();
    const dialog = this.page.getByRole('dialog', { name: /^Skip / });
    const phrase = (await dialog.locator('label .mono').first().textContent())!;
    expect(phrase).toMatch(/^skip member \d$/);
    await dialog.getByRole('textbox').fill(phrase);
    await dialog.getByRole('button', { name: 'Skip this member' }).click();
    await expect(dialog).toBeHidden();
  }
}
