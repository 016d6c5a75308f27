/** operation.list: redrive and replay operations newest first, filtered by status, paged with cursors bound to the filter. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { walk } from '../rpc-helpers';
import { deadLettersOf, finished, publishCharges } from './dead-letter-operations';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

async function redrive(batch: string): Promise<string> {
  const ids = await publishCharges(server, 1, batch);
  const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
  const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
  const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100 });
  await finished(server, applied.operation!.operation_id);
  return applied.operation!.operation_id;
}

describe('operation.list', () => {
  it('lists operations newest first, one page at a time, and filters by status', async () => {
    const made = [await redrive('list-1'), await redrive('list-2'), await redrive('list-3')];
    const paged = (await walk(server, 'operation.list', { limit: 2 })).items.map((o) => o.operation_id);
    expect(paged).toEqual([...made].reverse());
    const { operations } = await ok(server, 'operation.list', { status: 'completed_with_failures' });
    expect(operations.map((o) => o.operation_id).sort()).toEqual([...made].sort());
    expect((await ok(server, 'operation.list', { status: 'cancelled' })).operations).toEqual([]);
  });

  it('INVALID_CURSOR for a cursor used with another filter', async () => {
    const first = await ok(server, 'operation.list', { limit: 1 });
    expect(first.next_cursor).toBeTruthy();
    await fails(server, 'operation.list', { limit: 1, status: 'running', cursor: first.next_cursor }, 'INVALID_CURSOR');
  });
});
