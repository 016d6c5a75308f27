/**
 * The mailbox screens as a reviewer sees them: the queue, one item's review with its decision
 * sheet, and the decision dialog. Tests say what they do ("reject with this reason"); the test ids
 * and roles live here once.
 */
import { expect, type Locator, type Page } from '@playwright/test';

export class MailboxQueue {
  readonly rows: Locator;
  readonly statusFilter: Locator;
  readonly typeFilter: Locator;
  /** Payload conditions ("payload.ticket_id = T-1030"), as on the event browser. */
  readonly payloadFilter: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('mailbox-row');
    this.statusFilter = page.getByLabel('Status');
    this.typeFilter = page.getByLabel('Type');
    this.payloadFilter = page.getByRole('search', { name: 'Mailbox filters' }).getByLabel('Payload', { exact: true });
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/mailbox${query}`);
  }

  /** The link of the n-th row (the one j/k marks as current). */
  rowLink(index: number): Locator {
    return this.rows.nth(index).locator('a');
  }

  rowFor(mailboxId: string): Locator {
    return this.rows.filter({ has: this.page.locator(`a[href^="/mailbox/${mailboxId}"]`) });
  }

  /** What the queue says when there are no items at all. */
  empty(): Locator {
    return this.page.getByText('The mailbox is empty');
  }

  /** What the queue says when the filters match nothing. */
  noMatch(): Locator {
    return this.page.getByText('No items match these filters');
  }

  async statuses(): Promise<(string | null)[]> {
    return this.rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
  }
}

export class MailboxReview {
  readonly root: Locator;
  readonly overrideNotes: Locator;
  readonly rejectButton: Locator;
  readonly approveButton: Locator;
  readonly decided: Locator;
  readonly history: Locator;
  readonly entityRevision: Locator;
  readonly entityContext: Locator;
  readonly downstreamPreview: Locator;
  readonly outcome: Locator;
  readonly dialog: DecisionDialog;
  /** A decided item's sheet: what it emitted, the entity at the decision and now. */
  readonly decidedSheet: DecidedSheet;
  /** The pending sheet's "If approved" preview (gone once decided). */
  readonly ifApprovedHeading: Locator;
  /** The outcome's link to the event the decision emitted. */
  readonly downstreamEventLink: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('mailbox-review');
    this.rejectButton = this.root.getByTestId('reject-button');
    this.approveButton = this.root.getByTestId('approve-button');
    this.decided = this.root.getByTestId('decided');
    this.history = this.root.getByTestId('history-entry');
    this.overrideNotes = this.root.getByTestId('override-note');
    this.entityRevision = this.root.getByTestId('entity-revision');
    this.entityContext = this.root.getByTestId('entity-context');
    this.downstreamPreview = this.root.getByTestId('downstream-preview');
    this.outcome = page.getByTestId('decision-outcome');
    this.dialog = new DecisionDialog(page);
    this.decidedSheet = new DecidedSheet(page.getByTestId('decided-sheet'));
    this.ifApprovedHeading = page.getByRole('heading', { name: 'If approved' });
    this.downstreamEventLink = this.outcome.getByTestId('downstream-event-link');
  }

  /** Opens the item's page and waits for its review. */
  static async open(page: Page, mailboxId: string): Promise<MailboxReview> {
    await page.goto(`/mailbox/${mailboxId}`);
    const review = new MailboxReview(page);
    await expect(review.root).toBeVisible();
    return review;
  }

  /** "n of m approvals · approved by …" on an item that needs several reviewers, and why Approve is off. */
  approvalProgress(): Locator {
    return this.page.getByTestId('approval-progress');
  }

  approveUnavailable(): Locator {
    return this.page.getByTestId('approve-unavailable');
  }

  historyEntries(action: string): Locator {
    return this.root.locator(`[data-testid="history-entry"][data-action="${action}"]`);
  }

  async expectStatus(status: 'pending' | 'approved' | 'rejected'): Promise<void> {
    await expect(this.root).toHaveAttribute('data-status', status);
  }
}

export class DecisionDialog {
  readonly root: Locator;
  readonly reason: Locator;
  readonly confirm: Locator;
  readonly alert: Locator;
  readonly approveConsequence: Locator;
  readonly payload: Locator;
  readonly rejectConsequence: Locator;
  readonly notPending: Locator;
  readonly staleSheet: Locator;
  readonly failingGates: Locator;
  readonly overrideNote: Locator;
  readonly reasonCodes: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('decision-dialog');
    this.reason = this.root.getByRole('textbox', { name: /^Reason/ });
    this.confirm = this.root.getByTestId('confirm-decision');
    this.alert = this.root.getByRole('alert');
    this.approveConsequence = this.root.getByTestId('approve-consequence');
    this.payload = this.root.getByTestId('approve-payload');
    this.rejectConsequence = this.root.getByTestId('reject-consequence');
    this.notPending = this.root.getByTestId('not-pending');
    this.staleSheet = this.root.getByTestId('stale-sheet');
    this.failingGates = this.root.getByTestId('failing-gates');
    this.overrideNote = this.root.getByRole('textbox', { name: 'Override note (required)' });
    this.reasonCodes = this.root.getByTestId('reason-code');
  }

  /** The reason code button for `code` ("other" included). */
  reasonCode(code: string): Locator {
    return this.root.locator(`[data-testid="reason-code"][data-code="${code}"]`);
  }

  quickPick(name: string): Locator {
    return this.root.getByRole('button', { name });
  }

  button(name: string): Locator {
    return this.root.getByRole('button', { name });
  }

  /** Rejects with a reason code (picked by clicking) and the reason text. */
  async rejectWith(reason: string, code = 'other'): Promise<void> {
    if ((await this.reasonCodes.count()) > 0 && (await this.reasonCode(code).getAttribute('aria-pressed')) !== 'true') await this.reasonCode(code).click();
    await this.reason.fill(reason);
    await this.confirm.click();
  }

  /** Approves past failing gates with an override note. */
  async approveAnywayWith(note: string): Promise<void> {
    await this.overrideNote.fill(note);
    await this.confirm.click();
  }
}

export class DecidedSheet {
  readonly emitted: Locator;
  readonly revisionAtDecision: Locator;
  readonly entityChanged: Locator;
  readonly now: Locator;

  constructor(readonly root: Locator) {
    this.emitted = root.getByTestId('emitted');
    this.revisionAtDecision = root.getByTestId('at-decision').getByTestId('entity-revision');
    this.entityChanged = root.getByTestId('entity-changed');
    this.now = root.getByTestId('now');
  }
}
