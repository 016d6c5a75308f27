/** operation.cancel: stops a running operation; what it sent stays sent. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { deadLettersOf, publishCharges } from './dead-letter-operations';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('operation.cancel', () => {
  it('cancels a running redrive once: the first call cancels it, a second says it was not running', async () => {
    const ids = await publishCharges(server, 6, 'cancel');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 0.5 });
    const id = applied.operation!.operation_id;
    const cancelled = await ok(server, 'operation.cancel', { operation_id: id });
    expect(cancelled).toMatchObject({ cancelled: true, operation: { operation_id: id, status: 'cancelled' } });
    expect(cancelled.operation.counts.done).toBeLessThan(6);
    expect((await ok(server, 'operation.get', { operation_id: id })).operation.status).toBe('cancelled');
    expect(await ok(server, 'operation.cancel', { operation_id: id })).toMatchObject({ cancelled: false, operation: { status: 'cancelled' } });
  });

  it('NOT_FOUND for an unknown operation', async () => {
    await fails(server, 'operation.cancel', { operation_id: 'op_missing' }, 'NOT_FOUND');
  });
});
