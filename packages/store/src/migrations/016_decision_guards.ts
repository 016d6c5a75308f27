import type { Kysely } from 'kysely';

/**
 * Decision guards (issue 36, part D): an approval given while some of the entity's gates failed
 * keeps the operator's override note and the gates it overrode (JSON), in the decision's history
 * entry, so the history says who approved past which gate and why.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['override_note', 'overridden_gates']) {
    await db.schema.alterTable('mailbox_history').addColumn(column, 'text').execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['override_note', 'overridden_gates']) {
    await db.schema.alterTable('mailbox_history').dropColumn(column).execute();
  }
}
