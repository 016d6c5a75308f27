import type { Kysely } from 'kysely';

/**
 * Issue 39: saved views. A person's named filters for one console list, private or shared. A name
 * is unique per owner and list regardless of case (`name_key`), enforced by the index so that two
 * servers saving the same name at once cannot both win. `filters` is the list screen's URL search
 * params as JSON. Owners are users; a view outlives nothing of the runtime's (a reset keeps it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saved_views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_user_id', 'text', (c) => c.notNull())
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('shared', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_views_owner_name').on('saved_views').columns(['owner_user_id', 'list', 'name_key']).unique().execute();
  // view.list reads others' shared views of a list.
  await db.schema.createIndex('saved_views_shared').on('saved_views').columns(['list', 'shared']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saved_views').execute();
}
