/** Test helpers: a runtime on a temp data dir with a bundle written from an object. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '@switchboard/store';
import { countRows, openTestStore } from '@switchboard/store/testing';
import { Runtime, type RuntimeOptions } from '../runtime';

export function tempDir(label = 'sb-rt-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), label));
}

export function writeBundle(dir: string, bundle: Record<string, unknown>, name = 'bundle.json'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(bundle, null, 2));
  return file;
}

export interface Fixture {
  dir: string;
  store: Store;
  runtime: Runtime;
  close(): Promise<void>;
}

export async function bootFixture(bundle: Record<string, unknown> | string, options: Partial<RuntimeOptions> & { dir?: string } = {}): Promise<Fixture> {
  const dir = options.dir ?? tempDir();
  const bundlePath = typeof bundle === 'string' ? bundle : writeBundle(dir, bundle);
  const store = await openTestStore(path.join(dir, 'data'));
  const runtime = await Runtime.boot({ autoStart: false, ...options, store, bundlePath });
  return {
    dir,
    store,
    runtime,
    async close() {
      await runtime.stop();
      await store.close();
    },
  };
}

/** A compact bundle for tests: one event, one entity_update subscriber. */
export function minimalBundle(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'test-bundle',
    version: '1',
    runtime: { max_attempts: 3, backoff_ms: 1, max_chain_depth: 4, lease_ms: 1000, handler_timeout_ms: 500 },
    events: {
      'order.placed': {
        payload_schema: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' }, amount: { type: 'number' } } },
        subscribers: [{ type: 'node', id: 'track-order' }],
      },
    },
    nodes: {
      'track-order': { kind: 'entity_update', entity_type: 'order', entity_id: '$.order_id', set_fields: { amount: '$.amount' }, accumulate: { seen: { op: 'count' } } },
    },
    entity_types: { order: { initial_state: 'new', states: ['new', 'paid'], gates: { small: 'amount <= 100' } } },
    ...overrides,
  };
}

export function count(store: Store, table: Parameters<typeof countRows>[1]): Promise<number> {
  return countRows(store, table);
}
