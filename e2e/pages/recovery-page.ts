/** Redrive and replay as an operator sees them: the dialog, its progress, and the Runtime page's sections. */
import type { Locator, Page } from '@playwright/test';

export class RecoveryDialog {
  readonly root: Locator;
  readonly plan: Locator;
  readonly toSend: Locator;
  readonly rate: Locator;
  readonly confirm: Locator;
  readonly apply: Locator;
  readonly progress: Locator;
  readonly sent: Locator;
  readonly outcomes: Locator;
  readonly close: Locator;
  /** A refusal or failure the dialog reports (a role that changed meanwhile, …). */
  readonly alert: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('recovery-dialog');
    this.plan = this.root.getByTestId('recovery-plan');
    this.toSend = this.root.getByTestId('plan-to-send');
    this.rate = this.root.getByTestId('recovery-rate');
    this.confirm = this.root.getByTestId('recovery-confirm');
    this.apply = this.root.getByTestId('apply-recovery');
    this.progress = this.root.getByTestId('operation-progress');
    this.sent = this.root.getByTestId('op-done');
    this.outcomes = this.root.getByTestId('op-outcomes');
    this.close = this.root.getByTestId('close-recovery');
    this.alert = this.root.getByRole('alert');
    this.sideEffectWarning = this.root.getByTestId('side-effect-warning');
    this.entityMovedOn = this.root.getByTestId('entity-moved-on');
    this.published = this.root.getByTestId('replayed-event-link');
  }

  readonly sideEffectWarning: Locator;
  readonly entityMovedOn: Locator;
  /** After a replay: links to the events it published. */
  readonly published: Locator;

  /** The tick box of one subscriber. */
  subscriber(id: string): Locator {
    return this.root.locator(`[data-testid="recovery-subscriber"][data-subscriber="${id}"]`);
  }
}

export class ToolServers {
  readonly root: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('tool-servers');
  }

  row(name: string): Locator {
    return this.root.locator(`[data-testid=tool-server][data-name="${name}"]`);
  }

  toggle(name: string): Locator {
    return this.row(name).getByTestId('toggle-faults');
  }
}

export class OperationsSection {
  readonly root: Locator;
  readonly rows: Locator;
  readonly progress: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('operations');
    this.rows = this.root.getByTestId('operation-row');
    this.progress = this.root.getByTestId('operation-progress');
  }
}
