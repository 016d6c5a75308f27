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
  readonly heading: Locator;
  /** The rule form's trigger select ("When") and its destination checkboxes. */
  readonly ruleTrigger: Locator;
  readonly ruleDestinations: Locator;
  readonly destinationName: Locator;
  readonly silenceForm: SilenceDialog;
  readonly deleteDestinationDialog: DeleteDestinationDialog;
  /** The history's status filter, its "Load more", and its empty message. */
  readonly noticesStatus: Locator;
  readonly noticesLoadMore: Locator;
  readonly noNoticesMatch: Locator;
  readonly showEndedSilences: Locator;
  readonly nothingSilenced: Locator;

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
    this.heading = page.getByRole('heading', { name: 'Alerts', level: 1 });
    this.ruleTrigger = this.ruleDialog.getByLabel('When');
    this.ruleDestinations = this.ruleDialog.getByTestId('rule-destinations');
    this.destinationName = this.destinationDialog.getByLabel('Name');
    this.silenceForm = new SilenceDialog(this.silenceDialog);
    this.deleteDestinationDialog = new DeleteDestinationDialog(page.getByTestId('delete-destination-dialog'));
    this.noticesStatus = page.getByTestId('notices-status');
    this.noticesLoadMore = page.getByTestId('notices-load-more');
    this.noNoticesMatch = page.getByText('No notices match these filters');
    this.showEndedSilences = page.getByTestId('silences-show-ended');
    this.nothingSilenced = page.getByText('Nothing is silenced');
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

  /** A history row's delivery status (delivered, failed, …), its last error and its "Resend". */
  noticeStatus(row: Locator): Locator {
    return row.getByTestId('notice-status');
  }

  noticeError(row: Locator): Locator {
    return row.getByTestId('notice-error');
  }

  resendNotice(row: Locator): Locator {
    return row.getByTestId('resend-notice');
  }

  /** The history's count once every page is loaded. */
  allNoticesLoaded(count: number): Locator {
    return this.page.getByText(`All ${count} notices loaded`);
  }

  /** Anywhere on the screen (a secret must not be). */
  textOnScreen(text: string): Locator {
    return this.page.getByText(text);
  }

  ruleAction(row: Locator, action: 'edit-rule' | 'toggle-rule' | 'silence-rule' | 'delete-rule'): Locator {
    return row.getByTestId(action);
  }

  /** A rule's trigger in words ("A server is declared dead"), and its "silenced, ends …" mark. */
  ruleTriggerWords(row: Locator): Locator {
    return row.getByTestId('rule-trigger-words');
  }

  ruleSilenced(row: Locator): Locator {
    return row.getByTestId('rule-silenced');
  }

  destinationUrl(row: Locator): Locator {
    return row.getByTestId('destination-url');
  }

  destinationAction(row: Locator, action: 'send-test-notice' | 'delete-destination'): Locator {
    return row.getByTestId(action);
  }

  /** After "Send test notice": the confirmation (carrying the notice id) with its link to the history. */
  testNoticeSent(row: Locator): Locator {
    return row.getByTestId('test-notice-sent');
  }

  testNoticeHistoryLink(sent: Locator): Locator {
    return sent.getByTestId('test-notice-history');
  }

  endSilence(row: Locator): Locator {
    return row.getByTestId('end-silence');
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

/** "Silence alerts": a duration, a reason it insists on, and the confirm. */
export class SilenceDialog {
  readonly reason: Locator;
  readonly confirm: Locator;
  readonly alert: Locator;

  constructor(readonly root: Locator) {
    this.reason = root.getByLabel('Reason (required)');
    this.confirm = root.getByTestId('confirm-silence');
    this.alert = root.getByRole('alert');
  }

  duration(length: '1h' | '4h'): Locator {
    return this.root.getByTestId(`silence-for-${length}`);
  }
}

/** Deleting a destination: refused, saying why, while a rule still sends to it. */
export class DeleteDestinationDialog {
  readonly confirm: Locator;
  readonly alert: Locator;

  constructor(readonly root: Locator) {
    this.confirm = root.getByTestId('confirm-delete-destination');
    this.alert = root.getByRole('alert');
  }
}
