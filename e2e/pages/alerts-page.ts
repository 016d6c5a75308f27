/** The Alerts screen as a person uses it: its four parts, the rule and destination forms, the history. */
import { expect, type Locator, type Page } from '@playwright/test';

export class AlertsPage {
  readonly rules: Locator;
  readonly destinations: Locator;
  readonly notices: Locator;
  readonly silences: Locator;
  readonly addRule: Locator;
  readonly addDestination: Locator;
  readonly addSilence: Locator;
  readonly ruleDialog: Locator;
  readonly destinationDialog: Locator;
  readonly silenceDialog: Locator;
  /** The rule form's trigger select ("When"). */
  readonly ruleTrigger: Locator;

  constructor(readonly page: Page) {
    this.rules = page.getByTestId('rule-row');
    this.destinations = page.getByTestId('destination-row');
    this.notices = page.getByTestId('notice-row');
    this.silences = page.getByTestId('silence-row');
    this.addRule = page.getByTestId('add-rule');
    this.addDestination = page.getByTestId('add-destination');
    this.addSilence = page.getByTestId('add-silence');
    this.ruleDialog = page.getByTestId('rule-dialog');
    this.destinationDialog = page.getByTestId('destination-dialog');
    this.silenceDialog = page.getByTestId('silence-dialog');
    this.ruleTrigger = this.ruleDialog.getByLabel('When');
  }

  tab(part: 'rules' | 'destinations' | 'history' | 'silences'): Locator {
    return this.page.getByTestId(`alerts-tab-${part}`);
  }

  destinationRow(name: string): Locator {
    return this.destinations.filter({ has: this.page.locator('.alert-card-name', { hasText: name }) });
  }

  notice(id: string): Locator {
    return this.page.locator(`[data-testid="notice-row"][data-notice-id="${id}"]`);
  }

  /** A history row's delivery status (delivered, failed, …). */
  noticeStatus(row: Locator): Locator {
    return row.getByTestId('notice-status');
  }

  ruleRow(name: string): Locator {
    return this.rules.filter({ has: this.page.locator('.alert-card-name', { hasText: name }) });
  }

  /** Adds a webhook destination and returns the signing secret the dialog shows (once). */
  async addWebhook(name: string, url: string): Promise<string> {
    await this.tab('destinations').click();
    await this.addDestination.click();
    await expect(this.destinationDialog).toBeVisible();
    await this.destinationDialog.getByLabel('Name').fill(name);
    await this.destinationDialog.getByLabel('URL').fill(url);
    await this.destinationDialog.getByTestId('save-destination').click();
    const secret = this.destinationDialog.getByTestId('destination-secret');
    await expect(secret).toHaveText(/^whsec_/);
    await expect(this.destinationDialog).toContainText('You will not see this secret again');
    const text = (await secret.textContent())!.trim();
    await this.destinationDialog.getByTestId('secret-stored').click();
    await expect(this.destinationDialog).toBeHidden();
    return text;
  }

  /** Adds a rule on a trigger (its label in the select) that notifies the named destinations. */
  async addRuleFor(name: string, triggerLabel: string, destinationNames: string[]): Promise<void> {
    await this.tab('rules').click();
    await this.addRule.click();
    await expect(this.ruleDialog).toBeVisible();
    await this.ruleDialog.getByLabel('Name').fill(name);
    await this.ruleDialog.getByLabel('When').selectOption({ label: triggerLabel });
    for (const d of destinationNames) await this.ruleDialog.getByTestId('rule-destinations').getByLabel(d).check();
    await this.ruleDialog.getByTestId('save-rule').click();
    await expect(this.ruleDialog).toBeHidden();
  }
}
