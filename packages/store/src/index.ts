export * from './clock';
export type { Engine } from './engine';
export * from './repositories/idempotency';
export * from './repositories/tokens';
export * from './repositories/web-sessions';
export type * from './schema';
export { Store, type StoreOptions } from './store';
export { sql } from 'kysely';
export type { Kysely, Transaction, Selectable, Insertable, Updateable } from 'kysely';
