/**
 * A third engine, to show what adding one takes: an object that `satisfies StoreEngine`, so that
 * a member the interface gains and an engine lacks fails the typecheck here as in each real
 * engine. It runs no queries of its own; its migration steps are recorded, to check that the
 * shared migrations run an engine's extra steps under their own names, in order.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { expect, it } from 'vitest';
import type { StoreEngine } from '../../src/engines/engine';
import { STORE_ENGINES } from '../../src/engines/index';
import { openSqlite } from '../../src/engines/sqlite/open-sqlite';
import { migrationProvider } from '../../src/migrations/index';

const steps: string[] = [];
const unsupported = (member: string) => () => {
  throw new Error(`the fake engine runs no ${member}`);
};
const recorded = (name: string) => ({ up: async () => void steps.push(`${name} up`) });

const fakeEngine = {
  name: 'sqlite',
  capabilities: { sharedByProcesses: false, concurrentWriters: false, pipelinedGuard: false },
  groupCommitParallelism: 1,
  changeReadSpacingMs: 25,
  classifyError: () => 'other',
  now: unsupported('clock'),
  // Its schema is SQLite's, so that the shared migrations run on an SQLite file below.
  autoIncrementKey: STORE_ENGINES.sqlite.autoIncrementKey,
  unplannedValue: unsupported('unplannedValue'),
  extraMigrationSteps: { '009_nodes_and_changes': recorded('009'), '013_write_guard': recorded('013') },
  claimDueUnlessLocked: unsupported('claim'),
  markDelivered: unsupported('markDelivered'),
  insertAsOne: unsupported('insertAsOne'),
  insertEventsWithDeliveries: unsupported('insertEventsWithDeliveries'),
  settleRunsWhenQuiet: unsupported('settleRunsWhenQuiet'),
  readByIds: unsupported('readByIds'),
  deleteAll: unsupported('deleteAll'),
  readHolding: unsupported('readHolding'),
  refuseWithNextWhileLocked: unsupported('refuseWithNextWhileLocked'),
  skippingLockedRows: unsupported('skippingLockedRows'),
  tryTransactionLock: unsupported('tryTransactionLock'),
  insertChange: unsupported('insertChange'),
  payloadCondition: unsupported('payloadCondition'),
  eventRecordJson: undefined,
  ensurePayloadIndex: unsupported('ensurePayloadIndex'),
  storage: unsupported('storage'),
  reclaimSpace: unsupported('reclaimSpace'),
} satisfies StoreEngine;

it('every engine has exactly the members the fake one needed', () => {
  const members = Object.keys(fakeEngine).sort();
  for (const engine of Object.values(STORE_ENGINES)) expect(Object.keys(engine).sort(), engine.name).toEqual(members);
});

it("runs an engine's extra steps after the shared migration of that name, and keeps every name", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-fake-engine-'));
  const { db, raw } = openSqlite(dir);
  try {
    const migrator = new Migrator({ db, provider: migrationProvider(fakeEngine) });
    const { error, results } = await migrator.migrateToLatest();
    expect(error).toBeUndefined();
    const names = (results ?? []).map((r) => r.migrationName);
    expect(names).toEqual(Object.keys(await migrationProvider(STORE_ENGINES.sqlite).getMigrations()));
    expect(steps).toEqual(['009 up', '013 up']);
    // 009's shared step ran before the extra one: its tables are there.
    expect(raw.prepare("select count(*) as n from sqlite_master where name in ('servers', 'changes')").get()).toEqual({ n: 2 });
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
