/**
 * `runtime_state`: small named values the runtime keeps durably (ingress open or paused, the
 * reset lock, the cursor secret, tool-server fault switches). Each method takes the caller's
 * transaction when the value must commit with other writes.
 */
import type { Kysely } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import type { Database } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { prepared } from '../prepared-statements';
import { compiledOnce } from '../compiled-once';

/** A key's value (the PREPARED mark is a comment on SQLite). */
const readValue = compiledOnce((db, key: string) => db.selectFrom('runtime_state').select('value').where('key', '=', key).modifyEnd(prepared));
/** Values each open transaction read with `getOnceIn`. */
const readOnce = new WeakMap<Kysely<Database>, Map<string, Promise<string | undefined>>>();

/** Rows each open transaction read with `getHoldingChanges`, and their values. */
const heldRows = new WeakMap<Kysely<Database>, Map<string, string | undefined>>();

/**
 * Forgets what `trx` read once and the rows it holds: after a rollback to a savepoint, the share
 * locks taken since it are gone (and a failed read is not an answer), so the next read is made again.
 */
export function forgetHeldRows(trx: Kysely<Database>): void {
  heldRows.delete(trx);
  readOnce.delete(trx);
}

export class RuntimeStateRepository {
  /** Keys read together with a held row (readAlongHeld). */
  private readonly alongHeld: string[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  /**
   * On PostgreSQL, `key` is read in the statement that takes a held row (getHoldingChanges) from
   * then on, and a later `getOnceIn` of it in that transaction answers from that read. For a value
   * most guarded transactions read (whether ingress is paused: every publish group reads it right
   * after the reset lock's guard): one round trip fewer each.
   */
  readAlongHeld(key: string): void {
    if (!this.alongHeld.includes(key)) this.alongHeld.push(key);
  }

  private on(tx: StoreTx | undefined): Kysely<Database> {
    return tx ? executorOf(tx) : this.db;
  }

  async get(key: string, tx?: StoreTx): Promise<string | undefined> {
    // Read once per group commit (ingress open or paused).
    const { rows } = await readValue(this.on(tx), key);
    return rows[0]?.value;
  }

  /**
   * Reads a value in `tx` once: later reads of the key in the same transaction (the other members
   * of a group commit) answer from memory. For values the transaction does not write itself; the
   * members then act as of the first read, as they all commit together.
   */
  async getOnceIn(key: string, tx: StoreTx): Promise<string | undefined> {
    const trx = executorOf(tx);
    let values = readOnce.get(trx);
    if (!values) readOnce.set(trx, (values = new Map()));
    let value = values.get(key);
    if (!value) values.set(key, (value = this.get(key, tx)));
    return value;
  }

  /**
   * Reads a value in `tx` and, on PostgreSQL, holds a share lock on its row until `tx` ends: a
   * writer that changes the row (taking the reset lock) waits for every such transaction to
   * finish, and every such transaction that starts after the change sees it. The key's row must
   * exist for the lock to hold (see `setIfAbsent`). SQLite has one writer at a time: a plain read.
   */
  async getHoldingChanges(key: string, tx: StoreTx): Promise<string | undefined> {
    // Once held, the row cannot change until `tx` ends: the members of a group commit after the
    // first read it from memory instead of another round trip each.
    const trx = executorOf(tx);
    const held = heldRows.get(trx);
    if (held?.has(key)) return held.get(key);
    const { value, along } = await this.engine.readHolding(trx, key, this.alongHeld);
    if (along) {
      let values = readOnce.get(trx);
      if (!values) readOnce.set(trx, (values = new Map()));
      // A key this transaction read before keeps that first read (getOnceIn's rule).
      for (const [also, alsoValue] of along) if (!values.has(also)) values.set(also, Promise.resolve(alsoValue));
    }
    if (held) held.set(key, value);
    else heldRows.set(trx, new Map([[key, value]]));
    return value;
  }

  /**
   * With capabilities.pipelinedGuard: what `getHoldingChanges(key, tx)` holds, without a round trip of its own. A
   * statement sent with the transaction's next one takes the same share lock on `key`'s row and
   * fails (refusedByGuard), failing that next statement and so the transaction, while the row holds
   * an unexpired lock (JSON with `expires_at` after `nowIso`) or while `refuse.key` has the value
   * `refuse.value`. For a writer that can run its transaction again with the reads when refused.
   */
  async refuseWithNextWhileLocked(tx: StoreTx, key: string, nowIso: string, refuse: { key: string; value: string }): Promise<void> {
    await this.engine.refuseWithNextWhileLocked(executorOf(tx), key, nowIso, refuse.key, refuse.value);
  }

  async set(key: string, value: string, tx?: StoreTx): Promise<void> {
    await this.on(tx)
      .insertInto('runtime_state')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }

  /** Writes `value` unless the key already has one; returns the value that stands afterwards. */
  async setIfAbsent(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('runtime_state')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await this.db.selectFrom('runtime_state').select('value').where('key', '=', key).executeTakeFirstOrThrow();
    return row.value;
  }

  /** Inserts a new key; fails on a unique-key conflict when another writer inserted it first. */
  async insert(key: string, value: string, tx?: StoreTx): Promise<void> {
    await this.on(tx).insertInto('runtime_state').values({ key, value }).execute();
  }

  /** Replaces the value only while it is still `expected` (compare and set); false when it moved. */
  async replaceIf(key: string, expected: string, value: string, tx?: StoreTx): Promise<boolean> {
    const res = await this.on(tx).updateTable('runtime_state').set({ value }).where('key', '=', key).where('value', '=', expected).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Updates an existing key (no insert); false when it is gone. */
  async update(key: string, value: string, tx?: StoreTx): Promise<boolean> {
    const res = await this.on(tx).updateTable('runtime_state').set({ value }).where('key', '=', key).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async delete(key: string, tx?: StoreTx): Promise<void> {
    await this.on(tx).deleteFrom('runtime_state').where('key', '=', key).execute();
  }
}
