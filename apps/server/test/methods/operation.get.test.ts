/** operation.get: one redrive or replay operation with its counts, outcomes and items, on the control bundle. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { deadLettersOf, finished, publishCharges } from './dead-letter-operations';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('operation.get', () => {
  it('reads a finished redrive: its counts, outcomes and one item per dead letter it sent', async () => {
    const ids = await publishCharges(server, 2, 'get');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100 });
    const id = applied.operation!.operation_id;
    await finished(server, id);
    const { operation, items } = await ok(server, 'operation.get', { operation_id: id });
    expect(operation).toMatchObject({ operation_id: id, kind: 'redrive', counts: { total: 2, done: 2 } });
    expect(items.map((i) => i.target_id).sort()).toEqual([...selection.dead_letter_ids].sort());
    expect((await ok(server, 'operation.get', { operation_id: id, items_limit: 1 })).items).toHaveLength(1);
  });

  it('NOT_FOUND for an unknown operation', async () => {
    await fails(server, 'operation.get', { operation_id: 'op_missing' }, 'NOT_FOUND');
  });
});
