/**
 * Kills a runtime process with SIGKILL in the middle of dispatching, and in the middle of a
 * resume, then lets a new runtime on the same data dir finish, and checks nothing acknowledged
 * was lost and nothing ran twice.
 */
import { spawn } from 'node:child_process';
import { databaseOf } from '@switchboard/store/testing';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Store } from '@switchboard/store';
import { Runtime } from './runtime';
import { minimalBundle, tempDir, writeBundle } from './testing/runtime-fixture';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, 'testing', 'crash-child.ts');

const crashBundle = minimalBundle({
  runtime: { max_attempts: 3, backoff_ms: 5, max_chain_depth: 4, lease_ms: 800, handler_timeout_ms: 500 },
  events: {
    'order.placed': {
      payload_schema: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' }, amount: { type: 'number' } } },
      subscribers: [
        { type: 'node', id: 'track-order' },
        { type: 'node', id: 'charge' },
      ],
    },
    'order.charged': { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'track-order' }] },
  },
  nodes: {
    'track-order': { kind: 'entity_update', entity_type: 'order', entity_id: '$.order_id', accumulate: { seen: { op: 'count' } } },
    charge: { kind: 'tool_call', tool_server: 'mcp.payments', tool: 'charge', arguments: { order_id: '$.order_id' }, emit_on_success: 'order.charged', emit_map: { order_id: '$.order_id' } },
  },
  tool_servers: { 'mcp.payments': { protocol: 'mcp', failure_rate: 0.4, tools: ['charge'] } },
});

/** Resume is about ingress, so its bundle skips the (deliberately slow, flaky) tool call. */
const resumeBundle = {
  ...crashBundle,
  events: {
    ...(crashBundle.events as Record<string, unknown>),
    'order.placed': { ...((crashBundle.events as Record<string, any>)['order.placed']), subscribers: [{ type: 'node', id: 'track-order' }] },
  },
};

interface ChildRun {
  acked: string[];
  killedAfter: string;
}

function runChildUntil(dataDir: string, bundlePath: string, mode: 'dispatch' | 'resume' | 'publish-load', n: number, killWhen: (line: string, acked: number) => number | undefined): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    // Run node itself (not the tsx CLI, whose grandchild a SIGKILL would not reach) so the kill is real.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, bundlePath, mode, String(n)], { cwd: path.resolve(here, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: string[] = [];
    let buffer = '';
    let stderr = '';
    let killing = false;
    child.stderr.on('data', (c) => (stderr += c));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let idx: number;
      while ((idx = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 1);
        if (line.startsWith('ACK ')) acked.push(line.slice(4));
        const delay = killing ? undefined : killWhen(line, acked.length);
        if (delay !== undefined) {
          killing = true;
          setTimeout(() => child.kill('SIGKILL'), delay);
        }
      }
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve({ acked, killedAfter: buffer });
      else reject(new Error(`child exited without being killed: ${stderr.slice(-2000)}`));
    });
  });
}

async function finishWithNewRuntime(dataDir: string, bundlePath: string) {
  const store = await Store.open({ dataDir });
  const runtime = await Runtime.boot({ store, bundlePath, dispatcher: { concurrency: 8 } });
  await runtime.waitForIdle(60_000);
  return { store, runtime };
}

async function assertSettledExactlyOnce(store: Store, acked: string[], rootSubscribers = 2) {
  const events = await databaseOf(store).selectFrom('events').select(['event_id', 'event_name']).execute();
  const ids = new Set(events.map((e) => e.event_id));
  for (const id of acked) expect(ids.has(id)).toBe(true);

  const deliveries = await databaseOf(store).selectFrom('deliveries').selectAll().execute();
  expect(deliveries.filter((d) => d.status === 'pending' || d.status === 'in_progress')).toEqual([]);
  const dls = await databaseOf(store).selectFrom('dead_letters').select(['delivery_id']).execute();
  const failed = deliveries.filter((d) => d.status === 'failed').map((d) => d.delivery_id).sort();
  expect(dls.map((d) => d.delivery_id).sort()).toEqual(failed);

  // Every root event got exactly its two deliveries, and each success event exactly one.
  const perEvent = new Map<string, number>();
  for (const d of deliveries) perEvent.set(d.event_id, (perEvent.get(d.event_id) ?? 0) + 1);
  for (const e of events) expect(perEvent.get(e.event_id)).toBe(e.event_name === 'order.placed' ? rootSubscribers : 1);

  // Handler effects committed once per delivered delivery: each order saw its placed event plus its charged event (if charged).
  const charged = new Set(
    (await databaseOf(store).selectFrom('events').select('payload').where('event_name', '=', 'order.charged').execute()).map((e) => (JSON.parse(e.payload) as { order_id: string }).order_id),
  );
  expect(charged.size).toBe(events.filter((e) => e.event_name === 'order.charged').length);
  const entities = await databaseOf(store).selectFrom('entities').select(['entity_id', 'accumulated']).execute();
  for (const ent of entities) {
    const orderId = ent.entity_id.replace(/^order-/, '');
    expect(JSON.parse(ent.accumulated).seen).toBe(charged.has(orderId) ? 2 : 1);
  }
  const running = await databaseOf(store).selectFrom('runs').select('run_id').where('status', 'in', ['running', 'queued']).execute();
  expect(running).toEqual([]);
}

/** Boots a new runtime on the killed one's data, lets it finish, and checks nothing was lost or doubled. */
async function finishAndCheckExactlyOnce(dataDir: string, bundlePath: string, acked: string[]) {
  const { store, runtime } = await finishWithNewRuntime(dataDir, bundlePath);
  try {
    await assertSettledExactlyOnce(store, acked);
  } finally {
    await runtime.stop();
    await store.close();
  }
}

describe('crash recovery', () => {
  it('SIGKILL mid-dispatch: a new runtime reclaims leases and finishes every acknowledged event exactly once', async () => {
    const dir = tempDir('sb-crash-');
    const bundlePath = writeBundle(dir, crashBundle);
    const dataDir = path.join(dir, 'data');
    const { acked } = await runChildUntil(dataDir, bundlePath, 'dispatch', 150, (line) => (line === 'PUBLISHED' ? 150 : undefined));
    expect(acked.length).toBe(150);

    const probe = await Store.open({ dataDir });
    const open = await databaseOf(probe).selectFrom('deliveries').select('status').where('status', 'in', ['pending', 'in_progress']).execute();
    const done = await databaseOf(probe).selectFrom('deliveries').select('status').where('status', 'in', ['delivered', 'failed']).execute();
    await probe.close();
    // The kill really landed mid-dispatch.
    expect(open.length).toBeGreaterThan(0);
    expect(done.length).toBeGreaterThan(0);

    await finishAndCheckExactlyOnce(dataDir, bundlePath, acked);
  }, 120_000);

  it('SIGKILL under concurrent publish load (group commit): every acknowledged event is stored once, with its run and deliveries, and nothing half-written', async () => {
    const dir = tempDir('sb-crash-');
    const bundlePath = writeBundle(dir, crashBundle);
    const dataDir = path.join(dir, 'data');
    const { acked } = await runChildUntil(dataDir, bundlePath, 'publish-load', 0, (_line, ackedSoFar) => (ackedSoFar >= 400 ? 0 : undefined));
    expect(acked.length).toBeGreaterThanOrEqual(400);

    const probe = await Store.open({ dataDir });
    try {
      const events = await databaseOf(probe).selectFrom('events').select(['event_id', 'run_id']).execute();
      const ids = new Set(events.map((e) => e.event_id));
      // Acknowledged means on disk; publishes in flight at the kill may be there too, whole or not at all.
      for (const id of acked) expect(ids.has(id)).toBe(true);
      expect(ids.size).toBe(events.length);
      const runs = new Map((await databaseOf(probe).selectFrom('runs').select(['run_id', 'root_event_id']).execute()).map((r) => [r.run_id, r.root_event_id]));
      expect(runs.size).toBe(events.length);
      for (const e of events) expect(runs.get(e.run_id ?? 'no run')).toBe(e.event_id);
      const deliveries = await databaseOf(probe).selectFrom('deliveries').select('event_id').execute();
      const perEvent = new Map<string, number>();
      for (const d of deliveries) perEvent.set(d.event_id, (perEvent.get(d.event_id) ?? 0) + 1);
      for (const e of events) expect(perEvent.get(e.event_id)).toBe(2);
      console.log(`publish load: ${acked.length} acknowledged before the kill, ${events.length} on disk after it`);
    } finally {
      await probe.close();
    }

    await finishAndCheckExactlyOnce(dataDir, bundlePath, acked);
  }, 120_000);

  it('SIGKILL mid-resume of 1,000 queued publishes: the next boot releases the rest, none twice', async () => {
    const dir = tempDir('sb-crash-');
    const bundlePath = writeBundle(dir, resumeBundle);
    const dataDir = path.join(dir, 'data');
    const { acked } = await runChildUntil(dataDir, bundlePath, 'resume', 1000, (line) => (line.startsWith('MID-RESUME ') ? 0 : undefined));
    expect(acked.length).toBe(1000);

    const probe = await Store.open({ dataDir });
    const released = await databaseOf(probe).selectFrom('ingress_queue').select('queue_id').where('status', '=', 'released').execute();
    await probe.close();
    expect(released.length).toBeGreaterThan(0);
    expect(released.length).toBeLessThan(1000);

    const { store, runtime } = await finishWithNewRuntime(dataDir, bundlePath);
    try {
      const roots = await databaseOf(store).selectFrom('events').select('event_id').where('event_name', '=', 'order.placed').execute();
      expect(roots).toHaveLength(1000);
      expect(new Set(roots.map((r) => r.event_id))).toEqual(new Set(acked));
      expect(await databaseOf(store).selectFrom('ingress_queue').select('queue_id').where('status', '=', 'queued').execute()).toEqual([]);
      await assertSettledExactlyOnce(store, acked, 1);
    } finally {
      await runtime.stop();
      await store.close();
    }
  }, 180_000);
});
