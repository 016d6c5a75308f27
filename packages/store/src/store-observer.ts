/**
 * What the store tells whoever watches it (the server's metrics) about its transactions. The
 * store does not know how it is measured: the default observer does nothing, and the calls are
 * made after a transaction ends, never inside one.
 */
export type TransactionKind = 'single' | 'group';
export type TransactionOutcome = 'commit' | 'rollback';

export interface StoreObserver {
  /** A transaction of Store.transaction ('single') or of a group commit ('group') ended after `seconds`. */
  onTransaction(kind: TransactionKind, outcome: TransactionOutcome, seconds: number): void;
  /** A group commit's transaction committed the writes of `members` callers. */
  onGroupCommit(members: number): void;
}

export const noopStoreObserver: StoreObserver = {
  onTransaction() {},
  onGroupCommit() {},
};
