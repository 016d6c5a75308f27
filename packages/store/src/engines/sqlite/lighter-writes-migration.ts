import { sql, type Kysely } from 'kysely';

/**
 * SQLite's steps in 029: fewer b-trees written by each durable publish, with the same reads.
 *
 * - `audit` was created with `seq bigint primary key`, which SQLite keeps as a separate unique
 *   index beside the rowid: `integer primary key` makes seq the rowid itself. `audit_targets`,
 *   only ever searched by its key, becomes a `without rowid` table: its key is the table.
 * - The actor indexes of `audit`, the run index of `events` and the settle-time index of `runs`
 *   hold only the rows with a value: every read of them asks for a value (`= ?`, `in`, `<`), which
 *   SQLite answers from an index that is partial on `is not null`. An event published from outside
 *   has no run, and a run has no settle time until it settles.
 *
 * SQLite cannot change a primary key in place: the two audit tables are rebuilt and their rows
 * copied (the chain's content is unchanged, so its hashes still verify).
 */
const AUDIT_COLUMNS = sql.raw(
  '"at" text not null, "user_id" text, "user_name" text, "token_id" text, "channel" text not null, "server_id" text not null, "method" text not null, ' +
    '"target_ids" text not null, "params_summary" text not null, "outcome" text not null, "correlation_id" text, "prev_hash" text not null, "hash" text not null',
);

interface IndexShape {
  name: string;
  table: string;
  columns: string[];
  /** Partial on this column being set, after the step. */
  nullable?: string;
}

const INDEXES: IndexShape[] = [
  { name: 'audit_user', table: 'audit', columns: ['user_id', 'seq'], nullable: 'user_id' },
  { name: 'audit_token', table: 'audit', columns: ['token_id', 'seq'], nullable: 'token_id' },
  { name: 'audit_method', table: 'audit', columns: ['method', 'seq'] },
  { name: 'events_run', table: 'events', columns: ['run_id', 'created_at', 'seq'], nullable: 'run_id' },
  { name: 'runs_settled', table: 'runs', columns: ['settled_at', 'run_id'], nullable: 'settled_at' },
];

async function rebuildAudit(db: Kysely<any>, seqType: 'integer' | 'bigint', targetsWithoutRowid: boolean): Promise<void> {
  await sql`create table "audit_rebuilt" ("seq" ${sql.raw(seqType)} primary key, ${AUDIT_COLUMNS})`.execute(db);
  await sql`insert into "audit_rebuilt" select "seq", "at", "user_id", "user_name", "token_id", "channel", "server_id", "method", "target_ids", "params_summary", "outcome", "correlation_id", "prev_hash", "hash" from "audit"`.execute(db);
  await sql`drop table "audit"`.execute(db);
  await sql`alter table "audit_rebuilt" rename to "audit"`.execute(db);
  await sql`create table "audit_targets_rebuilt" ("target_id" text not null, "seq" ${sql.raw(seqType)} not null, constraint "audit_targets_pk" primary key ("target_id", "seq"))${sql.raw(targetsWithoutRowid ? ' without rowid' : '')}`.execute(db);
  await sql`insert into "audit_targets_rebuilt" select "target_id", "seq" from "audit_targets"`.execute(db);
  await sql`drop table "audit_targets"`.execute(db);
  await sql`alter table "audit_targets_rebuilt" rename to "audit_targets"`.execute(db);
}

/** Creates each index, partial when `partial` and the index has a nullable column. */
async function createIndexes(db: Kysely<any>, partial: boolean): Promise<void> {
  for (const index of INDEXES) {
    // Dropping the audit tables dropped their indexes; the others are still there.
    await db.schema.dropIndex(index.name).ifExists().execute();
    const create = db.schema.createIndex(index.name).on(index.table).columns(index.columns);
    await (partial && index.nullable ? create.where(sql.ref(index.nullable), 'is not', null) : create).execute();
  }
}

export function lighterWritesSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await rebuildAudit(db, 'integer', true);
      await createIndexes(db, true);
    },
    async down(db: Kysely<any>): Promise<void> {
      await rebuildAudit(db, 'bigint', false);
      await createIndexes(db, false);
    },
  };
}
