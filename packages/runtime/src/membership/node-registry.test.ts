/**
 * Nodes: a live node's in-progress idempotency claims and leases are never taken; once its
 * heartbeat lapses, exactly one other node takes it over (claims dropped, leases ended now).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type NodeTakeover, type Store } from '@switchboard/store';
import { databaseOf, openTestStore, testEngine } from '@switchboard/store/testing';
import { RuntimeLog } from '../runtime-log';
import { NodeRegistry } from './node-registry';

let dir: string;
let store: Store;
const registries: NodeRegistry[] = [];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-nodes-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  for (const r of registries.splice(0)) await r.leave();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const FAR = '2999-01-01T00:00:00.000Z';

function node(id: string): NodeRegistry {
  const r = new NodeRegistry(store, new RuntimeLog(store.logs, systemClock), id, () => 0, { beatMs: 50, deadAfterMs: 600, version: '9.9.9' });
  registries.push(r);
  return r;
}

/** What a node holds while it runs a keyed call and a handler. */
async function holdWork(nodeId: string): Promise<void> {
  expect((await store.idempotency.claim({ method: 'event.publish', tokenId: 'tok', key: `k-${nodeId}` }, 'hash', nodeId)).kind).toBe('claimed');
  await databaseOf(store)
    .insertInto('deliveries')
    .values({
      delivery_id: `dlv-${nodeId}`,
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
      lease_owner: nodeId,
      lease_expires_at: FAR,
      last_error: null,
      reason_code: null,
      session_id: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    })
    .execute();
}

async function held(nodeId: string): Promise<{ claims: number; leaseUntil: string | null | undefined }> {
  const db = databaseOf(store);
  const claims = await db.selectFrom('idempotency').select('key').where('node_id', '=', nodeId).where('state', '=', 'in_progress').execute();
  const lease = await db.selectFrom('deliveries').select('lease_expires_at').where('delivery_id', '=', `dlv-${nodeId}`).executeTakeFirst();
  return { claims: claims.length, leaseUntil: lease?.lease_expires_at };
}

describe.runIf(testEngine() === 'postgres')('nodes sharing a PostgreSQL database', () => {
  it('keeps a live node\'s claims and leases; once its heartbeat lapses one node takes it over, once', async () => {
    const crashed = node('node-a');
    await crashed.join(); // joins, then never beats again: a process killed after boot
    await holdWork('node-a');

    const takeovers: NodeTakeover[] = [];
    const b = node('node-b');
    const c = node('node-c');
    for (const r of [b, c]) r.onTakeover((t) => takeovers.push(t));
    await b.join();
    await c.join();
    // node-a's heartbeat is fresh: joining took nothing of it.
    expect(await held('node-a')).toEqual({ claims: 1, leaseUntil: FAR });
    expect((await b.liveNodes()).map((n) => n.node_id).sort()).toEqual(['node-a', 'node-b', 'node-c']);

    b.start();
    c.start();
    await expect.poll(() => takeovers.length, { timeout: 10_000 }).toBe(1);
    expect(takeovers[0]).toMatchObject({ node_id: 'node-a', idempotency_claims: 1, leases: 1 });
    const after = await held('node-a');
    expect(after.claims).toBe(0);
    expect(after.leaseUntil! < FAR).toBe(true);
    // Both kept beating and reaping; still one takeover, and node-a is no longer listed.
    await expect.poll(async () => (await b.liveNodes()).map((n) => n.node_id).sort(), { timeout: 5_000 }).toEqual(['node-b', 'node-c']);
    expect(takeovers).toHaveLength(1);
  });
});

describe.runIf(testEngine() === 'sqlite')('nodes on SQLite (one process per folder)', () => {
  it('at boot every other node row is a previous process: its claims and leases are released at once', async () => {
    const previous = node('node-old');
    await previous.join();
    await holdWork('node-old');
    const booting = node('node-new');
    await booting.join();
    const after = await held('node-old');
    expect(after.claims).toBe(0);
    expect(after.leaseUntil! < FAR).toBe(true);
    expect((await booting.liveNodes()).map((n) => ({ id: n.node_id, self: n.self, version: n.version }))).toEqual([{ id: 'node-new', self: true, version: '9.9.9' }]);
  });
});
