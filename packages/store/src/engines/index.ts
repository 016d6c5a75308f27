import type { Engine, StoreEngine } from './engine';
import { postgresEngine } from './postgres/postgres-engine';
import { sqliteEngine } from './sqlite/sqlite-engine';

/** Every engine the store runs on, by name: the conformance suite runs each (test/conformance). */
export const STORE_ENGINES: Readonly<Record<Engine, StoreEngine>> = { sqlite: sqliteEngine, postgres: postgresEngine };
