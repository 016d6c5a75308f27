import { sql, type Kysely } from 'kysely';

/**
 * Issue 37: the audit trail. `audit` holds one row per recorded act, chained by hash: `seq` is the
 * row's position (assigned by the appender, not a sequence, so the chain has no gaps), `hash` is
 * sha256 of its canonical content and `prev_hash`. `audit_head` is one row (the chain's last seq
 * and hash): an appending transaction locks it, so appends from every node serialise into one
 * linear chain. `audit_targets` indexes records by the ids they touch (a record may touch several).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('user_name', 'text')
    .addColumn('token_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('target_ids', 'text', (c) => c.notNull())
    .addColumn('params_summary', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('correlation_id', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  // audit.list's filters walk these newest first (keyset on seq).
  await db.schema.createIndex('audit_user').on('audit').columns(['user_id', 'seq']).execute();
  await db.schema.createIndex('audit_token').on('audit').columns(['token_id', 'seq']).execute();
  await db.schema.createIndex('audit_method').on('audit').columns(['method', 'seq']).execute();
  await db.schema
    .createTable('audit_targets')
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_targets_pk', ['target_id', 'seq'])
    .execute();
  await db.schema
    .createTable('audit_head')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into audit_head (id, seq, hash) values (1, 0, ${'0'.repeat(64)})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_head').execute();
  await db.schema.dropTable('audit_targets').execute();
  await db.schema.dropTable('audit').execute();
}
