import type { Kysely } from 'kysely';
import type { AutoIncrementKey } from '../engines/engine';

/**
 * Several server processes on one database (issue 10): each process is a node with a heartbeat
 * row; an in-progress idempotency claim names the node running it, so only a dead node's claims
 * are dropped; `changes` is the append-only change feed other nodes read by keyset (seq) to learn
 * what a node committed (live updates, reset notices, token revocations).
 */
export function nodesAndChangesMigration(autoIncrement: AutoIncrementKey) {
  const serial = autoIncrement.type;
  const pk = autoIncrement.primaryKey;
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('nodes')
        .addColumn('node_id', 'text', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('in_flight', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('stopped_at', 'text')
        .execute();
      await db.schema.createIndex('nodes_last_seen').on('nodes').columns(['last_seen_at']).execute();

      await db.schema
        .createTable('changes')
        .addColumn('seq', serial as any, pk)
        .addColumn('kinds', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema.alterTable('idempotency').addColumn('node_id', 'text').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('changes').execute();
      await db.schema.dropTable('nodes').execute();
    },
  };
}
