import { sql, type Kysely } from 'kysely';

/**
 * Issue 37: people. Every token belongs to a user with a role, and may be narrowed to explicit
 * scopes (`scopes`, a JSON array; null grants the role's scopes). Tokens made before this become
 * one admin each, named after the token, so nothing changes for their holders. `oidc_subject`
 * ("issuer sub") binds a person who signs in with OpenID Connect.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .addColumn('oidc_subject', 'text')
    .execute();
  await db.schema.createIndex('users_oidc_subject').on('users').column('oidc_subject').unique().execute();
  await db.schema.alterTable('tokens').addColumn('user_id', 'text').execute();
  await db.schema.alterTable('tokens').addColumn('scopes', 'text').execute();
  await db.schema.createIndex('tokens_user').on('tokens').columns(['user_id', 'created_at']).execute();
  // 'usr_' + the token id's random part: stable, unique, and tells which token a migrated user came from.
  await sql`insert into users (id, display_name, role, disabled, created_at)
            select 'usr_' || substr(id, 5), name, 'admin', 0, created_at from tokens`.execute(db);
  await sql`update tokens set user_id = 'usr_' || substr(id, 5)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tokens_user').execute();
  await db.schema.alterTable('tokens').dropColumn('scopes').execute();
  await db.schema.alterTable('tokens').dropColumn('user_id').execute();
  await db.schema.dropTable('users').execute();
}
