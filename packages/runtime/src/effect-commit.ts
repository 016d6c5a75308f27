import type { StoreTx } from '@switchboard/store';

/**
 * Something a caller commits in the same transaction as an operation's effect. The control API
 * stores a keyed call's answer this way, so a crash can never leave the effect committed and the
 * answer lost (a retry would otherwise run the effect twice).
 */
export type OnEffectCommit<O> = (trx: StoreTx, outcome: O) => Promise<void>;
