/**
 * Alerts: the rules the runtime keeps in memory, the configuration the control API changes, the
 * sender that delivers the notice outbox and the evaluator of conditions. Created with the runtime;
 * its loops start with it.
 */
import type { Clock, Store } from '@switchboard/store';
import { AlertConfig } from './alert-config';

export interface AlertsOptions {
  /** The console's public URL: links in notices are absolute when set. */
  publicUrl?: string;
}

export class Alerts {
  readonly config: AlertConfig;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly options: AlertsOptions = {},
  ) {
    this.config = new AlertConfig(store, clock, () => this.rulesChanged(), () => this.noticeDue());
  }

  /** A rule, destination or silence changed here: reload before the next transition. */
  rulesChanged(): void {}

  /** A notice was committed that is due now: wake the sender. */
  noticeDue(): void {}
}
