/**
 * The handle repositories take for "do this inside that transaction". Outside the store it is
 * opaque: the runtime and the server carry it from `Store.transaction` to repository methods and
 * never query it, so every statement stays in this package, the seam a second engine implements.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema';

declare const storeTxBrand: unique symbol;

export interface StoreTx {
  readonly [storeTxBrand]: 'StoreTx';
}

/** The Kysely transaction behind a handle (inside the store only). */
export function executorOf(tx: StoreTx): Kysely<Database> {
  return tx as unknown as Kysely<Database>;
}

export function storeTxOf(trx: Kysely<Database>): StoreTx {
  return trx as unknown as StoreTx;
}
