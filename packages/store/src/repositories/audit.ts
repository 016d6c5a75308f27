/**
 * The audit trail: one row per audited act, each linked to the one before by hash.
 *
 * A record appended with a caller's transaction is held until that transaction's owner finishes
 * it (`Store.transaction`, a group commit): `flushIn` then takes the chain head's row lock, writes
 * every held record in one statement and moves the head, as the transaction's last statements. So
 * an effect and its record commit together (or neither does), and the head's lock, which makes
 * appends from every server one linear chain, is held only from that point to the commit, not while
 * the effect's own work runs. Hashes are computed here, in JS: the database only stores them.
 */
import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { canonicalJson } from '@switchboard/contract';
import type { Clock } from '../clock';
import type { StoreEngine } from '../engines/engine';
import type { AuditTable, Database } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { prepared, sentWithNext } from '../prepared-statements';
import { compiledOnce } from '../compiled-once';
import { insertRows } from './insert-rows';

/** The previous hash of the chain's first record. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** What a caller records; the store adds seq, time and the chain's hashes. */
export interface AuditEntry {
  userId?: string | null;
  userName?: string | null;
  tokenId?: string | null;
  channel: 'api' | 'console' | 'cli';
  serverId: string;
  method: string;
  targetIds?: readonly string[];
  paramsSummary?: Record<string, unknown>;
  /** 'ok' or an error code. */
  outcome: string;
  correlationId?: string | null;
}

export interface AuditRecordRow {
  seq: number;
  at: string;
  user_id: string | null;
  user_name: string | null;
  token_id: string | null;
  channel: string;
  server_id: string;
  method: string;
  target_ids: string[];
  params_summary: Record<string, unknown>;
  outcome: string;
  correlation_id: string | null;
  prev_hash: string;
  hash: string;
}

export interface AuditFilter {
  /** A user id or a token id. */
  actor?: string;
  method?: string;
  targetId?: string;
  /** 'ok', 'error' (any error code), or one error code. */
  outcome?: string;
  /** Inclusive. */
  since?: string;
  /** Exclusive. */
  until?: string;
  /** Records older than this seq (a page's keyset). */
  beforeSeq?: number;
}

/** Where an audit page ended: records are listed newest first by seq. */
export interface AuditPosition {
  seq: number;
}

export interface AuditPage {
  records: AuditRecordRow[];
  /** The last record's position, when more records follow. */
  next?: AuditPosition;
}

/** The first record whose stored content does not match the chain, and why. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

export type ChainVerdict = { ok: true; verified: number } | { ok: false; verified: number; broken: ChainBreak };

/** The content a record's hash covers: every column but the hashes, canonically. */
function contentOf(row: Omit<AuditTable, 'hash' | 'prev_hash'>): string {
  return canonicalJson({
    seq: Number(row.seq),
    at: row.at,
    user_id: row.user_id,
    user_name: row.user_name,
    token_id: row.token_id,
    channel: row.channel,
    node_id: row.server_id, // the hashed name, as records written before migration 022 have it
    method: row.method,
    target_ids: row.target_ids,
    params_summary: row.params_summary,
    outcome: row.outcome,
    correlation_id: row.correlation_id,
  });
}

/** sha256 of the previous record's hash and this record's canonical content. */
export function auditHash(prevHash: string, row: Omit<AuditTable, 'hash' | 'prev_hash'>): string {
  // One-shot hash: a createHash object per record cost several times the hashing itself.
  return hash('sha256', `${prevHash}\n${contentOf(row)}`);
}

type PendingRow = Omit<AuditTable, 'seq' | 'prev_hash' | 'hash'>;

/** Records held on each open transaction (keyed by its executor, as the change feed's marks are). */
const pending = new WeakMap<object, PendingRow[]>();

/** How many records a transaction holds, to restore when a savepoint rolls back what came after. */
export function heldAuditCount(trx: Kysely<Database>): number {
  return pending.get(trx)?.length ?? 0;
}

export function restoreHeldAudit(trx: Kysely<Database>, count: number): void {
  const rows = pending.get(trx);
  if (rows) rows.length = count;
}

/**
 * Claims `count` positions: the head's row lock (PostgreSQL) or the writer's lock (SQLite, a write
 * first, so a deferred transaction never has to upgrade a read) is held to the commit. Answers the
 * last claimed seq and the hash before them.
 */
const claimPositions = compiledOnce((db, count: number) =>
  db.updateTable('audit_head').set((eb) => ({ seq: eb('seq', '+', count) })).where('id', '=', 1).returning(['seq', 'hash']).modifyEnd(prepared),
);
const moveHead = compiledOnce((db, hash: string) => db.updateTable('audit_head').set({ hash }).where('id', '=', 1).modifyEnd(sentWithNext).modifyEnd(prepared));

const VERIFY_PAGE = 1000;

export class AuditRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
    private readonly clock: Clock,
  ) {}

  /**
   * Appends a record: inside `tx` it is written when that transaction is finished (and commits
   * with it); without one, in a transaction of its own.
   */
  async append(entry: AuditEntry, tx?: StoreTx): Promise<void> {
    const row = this.rowOf(entry);
    if (tx) {
      const trx = executorOf(tx);
      const held = pending.get(trx);
      if (held) held.push(row);
      else pending.set(trx, [row]);
      return;
    }
    await this.db.transaction().execute((trx) => this.write(trx, [row]));
  }

  /**
   * Writes the records held on `trx` (its owner calls this just before committing): the chain
   * head is locked from here to the commit. Returns how many were written.
   */
  async flushIn(trx: Kysely<Database>): Promise<number> {
    const rows = pending.get(trx);
    pending.delete(trx);
    if (!rows || rows.length === 0) return 0;
    await this.write(trx, rows);
    return rows.length;
  }

  private rowOf(entry: AuditEntry): PendingRow {
    return {
      at: this.clock.now().toISOString(),
      user_id: entry.userId ?? null,
      user_name: entry.userName ?? null,
      token_id: entry.tokenId ?? null,
      channel: entry.channel,
      server_id: entry.serverId,
      method: entry.method,
      target_ids: JSON.stringify([...new Set(entry.targetIds ?? [])]),
      params_summary: JSON.stringify(entry.paramsSummary ?? {}),
      outcome: entry.outcome,
      correlation_id: entry.correlationId ?? null,
    };
  }

  private async write(trx: Kysely<Database>, rows: readonly PendingRow[]): Promise<void> {
    const head = (await claimPositions(trx, rows.length)).rows[0];
    if (!head) throw new Error('the audit chain head is missing (migration 018_audit)');
    let seq = Number(head.seq) - rows.length;
    let prevHash = head.hash;
    const chained: AuditTable[] = [];
    const targets: { target_id: string; seq: number }[] = [];
    for (const row of rows) {
      seq += 1;
      const hash = auditHash(prevHash, { ...row, seq });
      chained.push({ ...row, seq, prev_hash: prevHash, hash });
      for (const id of JSON.parse(row.target_ids) as string[]) targets.push({ target_id: id, seq });
      prevHash = hash;
    }
    // Sent with the next statement where the engine can: nothing is read back.
    await insertRows(this.engine, trx, 'audit', chained, { withNext: true });
    await insertRows(this.engine, trx, 'audit_targets', targets, { withNext: true });
    await moveHead(trx, prevHash);
  }

  /** Records matching `filter`, newest first, at most `limit`. */
  async list(filter: AuditFilter, limit: number): Promise<AuditRecordRow[]> {
    let q = this.db.selectFrom('audit').selectAll();
    if (filter.actor) {
      const actor = filter.actor;
      q = q.where((eb) => eb.or([eb('user_id', '=', actor), eb('token_id', '=', actor)]));
    }
    if (filter.method) q = q.where('method', '=', filter.method);
    if (filter.targetId) {
      const targetId = filter.targetId;
      q = q.where('seq', 'in', (eb) => eb.selectFrom('audit_targets').select('seq').where('target_id', '=', targetId));
    }
    if (filter.outcome === 'error') q = q.where('outcome', '!=', 'ok');
    else if (filter.outcome) q = q.where('outcome', '=', filter.outcome);
    if (filter.since) q = q.where('at', '>=', filter.since);
    if (filter.until) q = q.where('at', '<', filter.until);
    if (filter.beforeSeq !== undefined) q = q.where('seq', '<', filter.beforeSeq);
    const rows = await q.orderBy('seq', 'desc').limit(limit).execute();
    return rows.map(recordOf);
  }

  /** A page of `list`, older than `after` when given. */
  async page(filter: Omit<AuditFilter, 'beforeSeq'>, options: { limit: number; after?: AuditPosition }): Promise<AuditPage> {
    // One more than the page: whether a next page exists without a count.
    const rows = await this.list({ ...filter, beforeSeq: options.after?.seq }, options.limit + 1);
    const records = rows.slice(0, options.limit);
    const last = records[records.length - 1];
    return rows.length > options.limit && last ? { records, next: { seq: last.seq } } : { records };
  }

  /** Records oldest first from `afterSeq`, a page at a time (export). */
  async *walk(filter: Omit<AuditFilter, 'beforeSeq'> = {}, pageSize = VERIFY_PAGE): AsyncGenerator<AuditRecordRow> {
    let after = 0;
    for (;;) {
      let q = this.db.selectFrom('audit').selectAll().where('seq', '>', after);
      if (filter.actor) {
        const actor = filter.actor;
        q = q.where((eb) => eb.or([eb('user_id', '=', actor), eb('token_id', '=', actor)]));
      }
      if (filter.method) q = q.where('method', '=', filter.method);
      if (filter.since) q = q.where('at', '>=', filter.since);
      if (filter.until) q = q.where('at', '<', filter.until);
      const rows = await q.orderBy('seq').limit(pageSize).execute();
      for (const row of rows) yield recordOf(row);
      if (rows.length < pageSize) return;
      after = Number(rows[rows.length - 1]!.seq);
    }
  }

  /**
   * Walks the whole chain: every record's seq follows the one before, its prev_hash is that
   * record's hash and its hash matches its content; the head names the last record. Stops at the
   * first record that does not match.
   */
  async verify(): Promise<ChainVerdict> {
    // Retention may have removed the oldest records: the chain then starts after the last one it
    // removed, whose hash the head keeps.
    const start = await this.db.selectFrom('audit_head').select(['pruned_through_seq', 'pruned_through_hash']).where('id', '=', 1).executeTakeFirst();
    const prunedThrough = Number(start?.pruned_through_seq ?? 0);
    let expectedSeq = prunedThrough + 1;
    let prevHash = start?.pruned_through_hash ?? AUDIT_GENESIS_HASH;
    let verified = 0;
    for (;;) {
      const rows = await this.db.selectFrom('audit').selectAll().where('seq', '>=', expectedSeq).orderBy('seq').limit(VERIFY_PAGE).execute();
      for (const raw of rows) {
        const seq = Number(raw.seq);
        if (seq !== expectedSeq) return { ok: false, verified, broken: { seq: expectedSeq, reason: `record ${expectedSeq} is missing (the next is ${seq})` } };
        if (raw.prev_hash !== prevHash) return { ok: false, verified, broken: { seq, reason: 'its prev_hash is not the previous record\'s hash' } };
        if (auditHash(prevHash, { ...raw, seq }) !== raw.hash) return { ok: false, verified, broken: { seq, reason: 'its content does not match its hash' } };
        prevHash = raw.hash;
        expectedSeq += 1;
        verified += 1;
      }
      if (rows.length < VERIFY_PAGE) break;
    }
    const head = await this.db.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirst();
    if (!head) return { ok: false, verified, broken: { seq: expectedSeq, reason: 'the chain head row is missing' } };
    if (Number(head.seq) !== prunedThrough + verified || head.hash !== prevHash) {
      return { ok: false, verified, broken: { seq: Number(head.seq), reason: `the chain head names record ${Number(head.seq)} but the chain ends at ${prunedThrough + verified}` } };
    }
    return { ok: true, verified };
  }
}

function recordOf(row: AuditTable): AuditRecordRow {
  return {
    ...row,
    seq: Number(row.seq),
    target_ids: JSON.parse(row.target_ids) as string[],
    params_summary: JSON.parse(row.params_summary) as Record<string, unknown>,
  };
}
