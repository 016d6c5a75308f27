/** The runtime page as an operator sees it: ingress with its confirm dialog, and the guarded reset. */
import { expect, type Locator, type Page } from '@playwright/test';

export class RuntimePage {
  readonly ingressState: Locator;
  readonly bundleFingerprint: Locator;
  readonly queueDepth: Locator;
  readonly pauseButton: Locator;
  readonly resumeButton: Locator;
  readonly refreshButton: Locator;
  /** "Reset everything…": opens the reset dialog, or says which role it needs. */
  readonly openNukeButton: Locator;
  readonly ingressDialog: IngressDialog;
  readonly nukeDialog: NukeDialog;
  /** The rows of the past resets table (the reset audit). */
  readonly pastResets: Locator;
  /** The publishes a paused ingress holds, one list item each. */
  readonly queuedPublishes: Locator;
  readonly queuedPublishItems: Locator;
  readonly retention: RetentionPanel;

  constructor(readonly page: Page) {
    this.ingressState = page.getByTestId('ingress-state');
    this.bundleFingerprint = page.getByTestId('bundle-fingerprint');
    this.queueDepth = page.getByTestId('queue-depth');
    this.pauseButton = page.getByRole('button', { name: 'Pause ingress…' });
    this.resumeButton = page.getByRole('button', { name: 'Resume ingress…' });
    this.refreshButton = page.getByRole('button', { name: 'Refresh' });
    this.openNukeButton = page.getByTestId('open-nuke');
    this.ingressDialog = new IngressDialog(page);
    this.nukeDialog = new NukeDialog(page);
    this.pastResets = page.getByTestId('past-reset');
    this.queuedPublishes = page.getByTestId('queued-publishes');
    this.queuedPublishItems = this.queuedPublishes.locator('li');
    this.retention = new RetentionPanel(page);
  }

  /** `origin` is the server's URL when the test runs against its own server rather than the shared one. */
  async goto(origin = ''): Promise<void> {
    await this.page.goto(`${origin}/runtime`);
  }

  /** Opens the reset dialog and waits for its dry-run preview. */
  async openNuke(): Promise<NukeDialog> {
    // The reset button is last on the page, under sections that load on their own: one that
    // finishes loading between Playwright's check of the button and its click moves the button
    // down, and the click falls on the section above (the likely cause of a click in CI, under
    // steady traffic, after which no dialog came).
    await expect(this.page.locator('main .state-loading')).toHaveCount(0);
    await this.openNukeButton.click();
    await expect(this.nukeDialog.root).toBeVisible();
    await expect(this.nukeDialog.preview).toBeVisible();
    return this.nukeDialog;
  }
}

export class IngressDialog {
  readonly root: Locator;
  readonly reason: Locator;
  readonly confirm: Locator;

  constructor(page: Page) {
    this.root = page.getByTestId('ingress-dialog');
    this.reason = this.root.getByLabel('Reason (optional)');
    this.confirm = this.root.getByTestId('confirm-ingress');
  }
}

/** The reset's three steps: preview (dry run), confirm by name, apply with a reason; then the outcome. */
export class NukeDialog {
  readonly root: Locator;
  readonly preview: Locator;
  readonly planHash: Locator;
  readonly continueButton: Locator;
  readonly confirmInput: Locator;
  readonly arm: Locator;
  readonly reason: Locator;
  readonly apply: Locator;
  readonly alert: Locator;
  readonly outcome: Locator;
  readonly errors: Locator;
  readonly stale: Locator;
  readonly pauseThenPreview: Locator;
  readonly pausedBasis: Locator;
  readonly useFreshPlan: Locator;
  readonly planReplaced: Locator;

  constructor(page: Page) {
    this.root = page.getByTestId('nuke-dialog');
    this.preview = this.root.getByTestId('nuke-preview');
    this.planHash = this.root.getByTestId('plan-hash');
    this.continueButton = this.root.getByRole('button', { name: 'Continue' });
    this.confirmInput = this.root.getByTestId('nuke-confirm-input');
    this.arm = this.root.getByTestId('nuke-arm');
    this.reason = this.root.getByTestId('nuke-reason');
    this.apply = this.root.getByTestId('nuke-apply');
    this.alert = this.root.getByRole('alert');
    this.outcome = this.root.getByTestId('nuke-outcome');
    this.errors = this.outcome.getByTestId('nuke-errors');
    this.stale = this.root.getByTestId('plan-stale');
    this.pauseThenPreview = this.root.getByTestId('nuke-pause-preview');
    this.pausedBasis = this.root.getByTestId('nuke-paused-basis');
    this.useFreshPlan = this.root.getByTestId('nuke-use-fresh');
    this.planReplaced = this.root.getByTestId('plan-replaced');
  }

  /** The dialog's Close button (the first, when the outcome adds another). */
  close(): Locator {
    return this.root.getByRole('button', { name: 'Close' }).first();
  }

  /** A stale plan's table of what changed since the preview. */
  whatChanged(): Locator {
    return this.stale.getByRole('table', { name: 'What changed' });
  }

  /** The outcome's alert (a partial failure) and its success callout. */
  outcomeAlert(): Locator {
    return this.outcome.getByRole('alert');
  }

  outcomeSuccess(): Locator {
    return this.outcome.locator('.callout-ok');
  }

  /** One reset owner's section of the preview: plan, quiescence, cleanup or containers. */
  owner(name: 'plan' | 'quiescence' | 'cleanup' | 'containers'): Locator {
    return this.root.getByTestId(`owner-${name}`);
  }

  /** From the preview to a reset applied: continue, type the confirmation, arm, give the reason, apply. */
  async confirmAndApply(confirmation: string, reason: string): Promise<void> {
    await this.continueButton.click();
    await this.confirmInput.fill(confirmation);
    await this.arm.click();
    await this.reason.fill(reason);
    await this.apply.click();
  }
}

/** The live servers on the Runtime page: one row per server, the console's own marked. */
export class ServersPanel {
  readonly root: Locator;
  readonly rows: Locator;
  readonly selfRow: Locator;
  readonly summary: Locator;
  /** The panel's error (when health.check fails) and its retry. */
  readonly alert: Locator;
  readonly tryAgain: Locator;

  constructor(page: Page) {
    this.root = page.getByTestId('servers');
    this.alert = this.root.getByRole('alert');
    this.tryAgain = this.root.getByRole('button', { name: 'Try again' });
    this.rows = this.root.getByTestId('server-row');
    this.selfRow = this.root.locator('[data-testid="server-row"][data-self="true"]');
    this.summary = this.root.getByTestId('servers-summary');
  }

  /** A row's parts: the "this server" mark, the (truncated) server id, deliveries in flight, last seen. */
  thisServer(row: Locator): Locator {
    return row.getByTestId('this-server');
  }

  serverId(row: Locator): Locator {
    return row.getByTestId('server-id');
  }

  inFlight(row: Locator): Locator {
    return row.getByTestId('server-in-flight');
  }

  lastSeen(row: Locator): Locator {
    return row.getByTestId('server-last-seen');
  }

  row(pid: number): Locator {
    return this.rows.filter({ has: this.root.page().getByTestId('server-pid').getByText(String(pid), { exact: true }) });
  }
}

/** The Retention section: settings, last and next pass, Preview and Run now with its confirmation. */
export class RetentionPanel {
  readonly root: Locator;
  readonly settings: Locator;
  readonly size: Locator;
  readonly lastRun: Locator;
  readonly nextRun: Locator;
  readonly previewButton: Locator;
  readonly runNowButton: Locator;
  readonly confirmButton: Locator;
  readonly outcome: Locator;
  readonly outcomeSummary: Locator;
  /** The "needs admin" note a guarded button carries for a role without the scope. */
  readonly needsRole: Locator;

  constructor(page: Page) {
    this.root = page.getByTestId('retention');
    this.settings = this.root.getByTestId('retention-settings');
    this.size = this.root.getByTestId('retention-size');
    this.lastRun = this.root.getByTestId('retention-last-run');
    this.nextRun = this.root.getByTestId('retention-next-run');
    this.previewButton = this.root.getByTestId('retention-preview');
    this.runNowButton = this.root.getByTestId('retention-run-now');
    this.confirmButton = this.root.getByTestId('retention-confirm');
    this.outcome = this.root.getByTestId('retention-outcome');
    this.outcomeSummary = this.root.getByTestId('retention-outcome-summary');
    this.needsRole = this.root.getByTestId('needs-role');
  }

  /** The row of a kind in the outcome's counts ("runs", "events", ...). */
  count(kind: string): Locator {
    return this.outcome.getByRole('row', { name: kind, exact: false }).locator('td');
  }
}
