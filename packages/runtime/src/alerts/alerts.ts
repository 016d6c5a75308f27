/**
 * Alerts: the rules the runtime keeps in memory, the configuration the control API changes, the
 * sender that delivers the notice outbox and the evaluator of conditions. Created with the runtime;
 * its loops start with it.
 */
import type { Clock, Store } from '@switchboard/store';
import { AlertConfig } from './alert-config';
import { NoticeSender, type NoticeSenderOptions } from './notice-sender';

export type AlertsOptions = NoticeSenderOptions & {
  /** How often conditions (SLA, rates, ages) are evaluated (default 5 s). */
  evaluateMs?: number;
};

export class Alerts {
  readonly config: AlertConfig;
  readonly sender: NoticeSender;
  private nodeId = '';

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly options: AlertsOptions = {},
  ) {
    this.config = new AlertConfig(store, clock, () => this.rulesChanged(), () => this.noticeDue());
    this.sender = new NoticeSender(store, clock, () => this.nodeId, options);
  }

  /** Starts sending as `nodeId` (the lease owner of the notices this process claims). */
  start(nodeId: string): void {
    this.nodeId = nodeId;
    this.sender.start();
  }

  async stop(): Promise<void> {
    await this.sender.stop();
  }

  /** A rule, destination or silence changed here: reload before the next transition. */
  rulesChanged(): void {}

  /** A notice was committed that is due now: wake the sender. */
  noticeDue(): void {
    this.sender.wake();
  }
}
