/**
 * What the runtime tells whoever watches it (the server's Prometheus metrics) as things happen.
 * The runtime does not know how it is measured: the default observer does nothing. Each call is
 * made after the commit it reports, with label values from small fixed sets (event names and
 * subscriber ids of the bundle, mailbox types), so an observer can count without allocating.
 */
export type PublishOutcome = 'running' | 'queued';
export type DeliveryOutcome = 'delivered' | 'retry' | 'dead_letter';
export type MailboxDecision = 'approved' | 'rejected';
/** Why a server stopped sending an operation it held: it no longer runs (cancelled, paused, gone), or another server took it. */
export type OperationDropReason = 'stopped' | 'taken';

export interface RuntimeObserver {
  /** A publish committed: its run is running, or queued while ingress is paused. */
  onPublish(eventName: string, outcome: PublishOutcome): void;
  /** A delivery attempt's outcome committed. */
  onDeliveryOutcome(subscriberId: string, outcome: DeliveryOutcome): void;
  /** A subscriber's handler answered (or failed, or timed out) after `seconds`. */
  onHandlerDuration(subscriberId: string, seconds: number): void;
  /** A mailbox item was decided `seconds` after it was created. */
  onMailboxDecision(mailboxType: string, decision: MailboxDecision, seconds: number): void;
  /**
   * The container supervisor looked for entities of managed types that have no container (at boot,
   * on taking over supervision, every few heartbeats) and queued a start for each it found.
   */
  onContainerSweep(): void;
  /** This server stopped sending an operation because the operation's fence refused it. */
  onOperationDropped(reason: OperationDropReason): void;
}

export const noopRuntimeObserver: RuntimeObserver = {
  onPublish() {},
  onDeliveryOutcome() {},
  onHandlerDuration() {},
  onMailboxDecision() {},
  onContainerSweep() {},
  onOperationDropped() {},
};
