/**
 * Servers: a live server's in-progress idempotency claims and leases are never taken; once its
 * heartbeat lapses, exactly one other server takes it over (claims dropped, leases ended now).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type ServerTakeover, type Store } from '@switchboard/store';
import { databaseOf, openTestStore, testEngine } from '@switchboard/store/testing';
import { RuntimeLog } from '../runtime-log';
import { ServerRegistry } from './server-registry';

let dir: string;
let store: Store;
const registries: ServerRegistry[] = [];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-servers-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  for (const r of registries.splice(0)) await r.leave();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const FAR = '2999-01-01T00:00:00.000Z';

function server(id: string): ServerRegistry {
  const r = new ServerRegistry(store, new RuntimeLog(store.logs, systemClock), id, () => 0, { beatMs: 50, deadAfterMs: 600, version: '9.9.9' });
  registries.push(r);
  return r;
}

/** What a server holds while it runs a keyed call and a handler. */
async function holdWork(serverId: string): Promise<void> {
  expect((await store.idempotency.claim({ method: 'event.publish', tokenId: 'tok', key: `k-${serverId}` }, 'hash', serverId)).kind).toBe('claimed');
  await databaseOf(store)
    .insertInto('deliveries')
    .values({
      delivery_id: `dlv-${serverId}`,
      event_id: 'evt-1',
      event_seq: 1,
      event_created_at: '2026-01-01T00:00:00.000Z',
      run_id: 'run-1',
      subscriber_id: 'sub',
      subscriber_type: 'node',
      status: 'in_progress',
      attempts: 1,
      max_attempts: 3,
      next_attempt_at: '2026-01-01T00:00:00.000Z',
      lease_owner: serverId,
      lease_expires_at: FAR,
      last_error: null,
      reason_code: null,
      session_id: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    })
    .execute();
}

async function held(serverId: string): Promise<{ claims: number; leaseUntil: string | null | undefined }> {
  const db = databaseOf(store);
  const claims = await db.selectFrom('idempotency').select('key').where('server_id', '=', serverId).where('state', '=', 'in_progress').execute();
  const lease = await db.selectFrom('deliveries').select('lease_expires_at').where('delivery_id', '=', `dlv-${serverId}`).executeTakeFirst();
  return { claims: claims.length, leaseUntil: lease?.lease_expires_at };
}

describe.runIf(testEngine() === 'postgres')('servers sharing a PostgreSQL database', () => {
  it('keeps a live server\'s claims and leases; once its heartbeat lapses one server takes it over, once', async () => {
    const crashed = server('node-a');
    await crashed.join(); // joins, then never beats again: a process killed after boot
    await holdWork('node-a');

    const takeovers: ServerTakeover[] = [];
    const b = server('node-b');
    const c = server('node-c');
    for (const r of [b, c]) r.onTakeover((t) => takeovers.push(t));
    await b.join();
    await c.join();
    // node-a's heartbeat is fresh: joining took nothing of it.
    expect(await held('node-a')).toEqual({ claims: 1, leaseUntil: FAR });
    expect((await b.liveServers()).map((n) => n.server_id).sort()).toEqual(['node-a', 'node-b', 'node-c']);

    b.start();
    c.start();
    await expect.poll(() => takeovers.length, { timeout: 10_000 }).toBe(1);
    expect(takeovers[0]).toMatchObject({ server_id: 'node-a', idempotency_claims: 1, leases: 1 });
    const after = await held('node-a');
    expect(after.claims).toBe(0);
    expect(after.leaseUntil! < FAR).toBe(true);
    // Both kept beating and reaping; still one takeover, and node-a is no longer listed.
    await expect.poll(async () => (await b.liveServers()).map((n) => n.server_id).sort(), { timeout: 5_000 }).toEqual(['node-b', 'node-c']);
    expect(takeovers).toHaveLength(1);
  });
});

describe.runIf(testEngine() === 'sqlite')('servers on SQLite (one process per folder)', () => {
  it('at boot every other server row is a previous process: its claims and leases are released at once', async () => {
    const previous = server('server-old');
    await previous.join();
    await holdWork('server-old');
    const booting = server('server-new');
    await booting.join();
    const after = await held('server-old');
    expect(after.claims).toBe(0);
    expect(after.leaseUntil! < FAR).toBe(true);
    expect((await booting.liveServers()).map((n) => ({ id: n.server_id, self: n.self, version: n.version }))).toEqual([{ id: 'server-new', self: true, version: '9.9.9' }]);
  });
});
