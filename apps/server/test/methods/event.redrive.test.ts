/**
 * event.redrive (and the operations it runs, read and cancelled through operation.*) over real HTTP, on the control bundle's
 * charge.requested: its charge-card subscriber dead-letters while mcp.flaky's faults are on.
 */
import { describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import type { Result } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { count, expectSameStore, fails, ok, storeSnapshot, waitForQuiet } from '../control-helpers';
import { walk } from '../rpc-helpers';
import { deadLettersOf, expectCountsAddUp, finished, publishCharges } from './dead-letter-operations';
import { keyMaker, withControlServer } from './method-servers';

const newKey = keyMaker('redrive');

describe('event.redrive', () => {
  let server: TestServer;
  withControlServer((s) => {
    server = s as TestServer;
  });

  it('estimates without changing anything, and its counts match event.list', async () => {
    await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'on' });
    const ids = await publishCharges(server, 6, 'estimate');
    const listed = await ok(server, 'event.list', { filter: { event_name: 'charge.requested', has_dead_letter: true }, limit: 500 });
    const listedDeadLetters = listed.events.flatMap((e) => e.dead_letters);
    expect(listedDeadLetters.length).toBeGreaterThanOrEqual(6);

    const before = await storeSnapshot(server);
    const estimate = await ok(server, 'event.redrive', { dry_run: true, filter: { event_name: 'charge.requested' } });
    expectSameStore(before, await storeSnapshot(server));
    expect(estimate.dry_run).toBe(true);
    expect(estimate.operation).toBeUndefined();
    expect(estimate.plan.matched).toBe(listedDeadLetters.length);
    expect(estimate.plan.to_send).toBe(listedDeadLetters.filter((l) => !l.redrive).length);
    expect(estimate.plan.by_subscriber).toEqual([{ subscriber_id: 'charge-card', count: estimate.plan.to_send }]);
    expect(estimate.plan.by_reason_code.reduce((n, r) => n + r.count, 0)).toBe(estimate.plan.to_send);
    expect(estimate.plan.sample.length).toBe(Math.min(10, estimate.plan.to_send));
    expect(estimate.plan.plan_hash).toMatch(/^sha256:/);

    // Narrowed to explicit ids: exactly those.
    const mine = await deadLettersOf(server, ids);
    const two = await ok(server, 'event.redrive', { dry_run: true, dead_letter_ids: mine.slice(0, 2).map((l) => l.dead_letter_id) });
    expect(two.plan.to_send).toBe(2);
    expect(two.plan.sample.map((s) => s.target_id).sort()).toEqual(mine.slice(0, 2).map((l) => l.dead_letter_id).sort());
  });

  it('refuses an apply without a plan hash, and a stale one with PLAN_STALE, sending nothing', async () => {
    const before = await storeSnapshot(server);
    await fails(server, 'event.redrive', { dry_run: false, filter: { event_name: 'charge.requested' } }, 'INVALID_PARAMS');
    const stale = await fails(server, 'event.redrive', { dry_run: false, filter: { event_name: 'charge.requested' }, expected_plan_hash: 'sha256:not-the-plan' }, 'PLAN_STALE');
    expect(stale.data.details.plan_hash).toMatch(/^sha256:/);
    expectSameStore(before, await storeSnapshot(server));

    // A dead letter added after the estimate makes its hash stale.
    const estimate = await ok(server, 'event.redrive', { dry_run: true, filter: { event_name: 'charge.requested' } });
    await publishCharges(server, 1, 'late');
    await fails(server, 'event.redrive', { dry_run: false, filter: { event_name: 'charge.requested' }, expected_plan_hash: estimate.plan.plan_hash }, 'PLAN_STALE');
  });

  it('redrives each dead letter once; one that fails again leaves a new dead letter linked to the first; an idempotent replay returns the same operation', async () => {
    const ids = await publishCharges(server, 4, 'still-failing');
    const firsts = await deadLettersOf(server, ids);
    const selection = { dead_letter_ids: firsts.map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const key = newKey();
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100, idempotency_key: key });
    expect(applied.operation!.status).toBe('running');
    expect(applied.operation!.counts.total).toBe(4);
    const again = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100, idempotency_key: key });
    expect(again.operation!.operation_id).toBe(applied.operation!.operation_id);

    // Every redriven delivery dead-lettered again: not a plain success.
    const op = await finished(server, applied.operation!.operation_id);
    expect(op.status).toBe('completed_with_failures');
    expect(op.counts).toEqual({ total: 4, done: 4, failed: 0, skipped: 0 });
    expect(op.outcomes).toEqual({ pending: 0, delivered: 0, dead_lettered: 4, cancelled: 0 });
    await waitForQuiet(server);
    expect(await count(server, 'operations')).toBeGreaterThanOrEqual(1);

    const after = await deadLettersOf(server, ids);
    for (const first of firsts) {
      const row = after.find((l) => l.dead_letter_id === first.dead_letter_id)!;
      expect(row.redrive?.operation_id).toBe(op.operation_id);
      expect(row.redrive?.actor_token_id).toBeTruthy();
      const { events } = await ok(server, 'event.list', { filter: { event_id: first.event_id } });
      const redriven = events[0]!.deliveries.filter((d) => d.redrive_of_dead_letter_id === first.dead_letter_id);
      expect(redriven).toHaveLength(1);
      expect(redriven[0]!.delivery_id).toBe(row.redrive!.delivery_id);
      expect(redriven[0]!.status).toBe('failed');
      const second = events[0]!.dead_letters.filter((l) => l.delivery_id === redriven[0]!.delivery_id);
      expect(second).toHaveLength(1);
      expect(second[0]!.redrive).toBeUndefined();
      expect(second[0]!.redrive_of_dead_letter_id).toBe(first.dead_letter_id);
      expect(row.redrive_of_dead_letter_id).toBeUndefined();
    }
    const final = await ok(server, 'operation.get', { operation_id: op.operation_id });
    expect(final.operation.outcomes).toMatchObject({ dead_lettered: 4, delivered: 0, pending: 0 });
    expect(final.items.map((i) => [i.status, i.outcome])).toEqual(Array(4).fill(['done', 'dead_lettered']));

    // The same selection again: all four already redriven, nothing to send.
    const repeat = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    expect(repeat.plan).toMatchObject({ matched: 4, already_redriven: 4, to_send: 0 });

    // event.list finds dead letters not yet redriven.
    const open = await ok(server, 'event.list', { filter: { event_name: 'charge.requested', dead_letter_redriven: false }, limit: 500 });
    expect(open.events.every((e) => e.dead_letters.some((l) => !l.redrive))).toBe(true);
    const done = await ok(server, 'event.list', { filter: { event_name: 'charge.requested', dead_letter_redriven: true }, limit: 500 });
    expect(done.events.map((e) => e.event_id).sort()).toEqual(expect.arrayContaining([...ids].sort()));
  });

  it('after the tool is fixed, a redrive delivers and settles the runs as completed', async () => {
    const ids = await publishCharges(server, 3, 'fixed');
    await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'off' });
    const tools = await ok(server, 'runtime.tool_servers');
    expect(tools.tool_servers.find((t) => t.name === 'mcp.flaky')?.faults).toBe('off');
    try {
      const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
      const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
      const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100 });
      await finished(server, applied.operation!.operation_id);
      await waitForQuiet(server);
      const op = await ok(server, 'operation.get', { operation_id: applied.operation!.operation_id });
      expect(op.operation.outcomes).toMatchObject({ delivered: 3, dead_lettered: 0, pending: 0 });
      for (const event_id of ids) {
        const { events } = await ok(server, 'event.list', { filter: { event_id } });
        const run = await ok(server, 'run.get', { run_id: events[0]!.run_id! });
        expect(run.run.status).toBe('completed');
      }
      // Each dead-letter incident (one per subscriber and reason) says how many of its dead
      // letters were redriven and delivered, and which are left to redrive.
      const { incidents } = await ok(server, 'runtime.incidents', { component: 'dispatcher' });
      const deadLetterIncidents = incidents.filter((i) => i.error_code === 'DEAD_LETTER');
      expect(deadLetterIncidents.length).toBeGreaterThan(0);
      const listed = (await ok(server, 'event.list', { filter: { has_dead_letter: true }, limit: 500 })).events;
      const all = listed.flatMap((e) => e.dead_letters.map((l) => ({ l, deliveries: e.deliveries })));
      let deliveredInAll = 0;
      for (const incident of deadLetterIncidents) {
        const { dead_letters } = await ok(server, 'runtime.incident_logs', { incident_id: incident.incident_id });
        const mine = all.filter(({ l }) => l.subscriber_id === incident.subscriber_id && l.reason_code === incident.reason_code);
        const redriven = mine.filter(({ l }) => l.redrive);
        const delivered = redriven.filter(({ l, deliveries }) => deliveries.find((d) => d.delivery_id === l.redrive!.delivery_id)?.status === 'delivered');
        const left = mine.filter(({ l }) => !l.redrive).map(({ l }) => l.dead_letter_id);
        expect({ ...dead_letters, redrivable_ids: [...dead_letters!.redrivable_ids!].sort() }).toEqual({
          total: mine.length,
          redriven: redriven.length,
          delivered: delivered.length,
          redrivable_ids: left.sort(),
        });
        deliveredInAll += delivered.length;
      }
      expect(deadLetterIncidents.reduce((n, i) => n + i.count, 0)).toBe(all.length);
      expect(deliveredInAll).toBeGreaterThanOrEqual(3);
    } finally {
      await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'on' });
    }
  });

  it('holds the rate cap', async () => {
    const ids = await publishCharges(server, 16, 'rate');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const rate = 8;
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: rate });
    await finished(server, applied.operation!.operation_id);
    const times = (
      await databaseOf(server.store).selectFrom('operation_items').select('processed_at').where('operation_id', '=', applied.operation!.operation_id).orderBy('processed_at').execute()
    ).map((r) => Date.parse(r.processed_at!));
    expect(times).toHaveLength(16);
    const spanS = (times[times.length - 1]! - times[0]!) / 1000;
    // A token bucket lets at most one quarter second of sending (2 items at 8/s) through at once.
    const burst = Math.max(1, rate * 0.25);
    expect(spanS).toBeGreaterThanOrEqual((16 - 1 - burst) / rate);
    // Sends every item within ten percent of the planned time, plus a tick for the start.
    expect(spanS).toBeLessThan((16 / rate) * 1.1 + 0.25);
  });

  it('cancel stops an operation; what it sent stays sent', async () => {
    const ids = await publishCharges(server, 10, 'cancel');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 2 });
    const id = applied.operation!.operation_id;
    await expect.poll(async () => (await ok(server, 'operation.get', { operation_id: id })).operation.counts.done >= 1, { timeout: 10_000, message: 'the first item' }).toBe(true);
    const cancelled = await ok(server, 'operation.cancel', { operation_id: id });
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.operation.status).toBe('cancelled');
    const doneAtCancel = cancelled.operation.counts.done;
    expect(doneAtCancel).toBeLessThan(10);

    // Signal that the runner has had its chances: a later operation it runs completes.
    const other = await publishCharges(server, 1, 'after-cancel');
    const otherSel = { dead_letter_ids: (await deadLettersOf(server, other)).map((l) => l.dead_letter_id) };
    const otherEstimate = await ok(server, 'event.redrive', { dry_run: true, ...otherSel });
    const otherOp = await ok(server, 'event.redrive', { dry_run: false, ...otherSel, expected_plan_hash: otherEstimate.plan.plan_hash, rate_per_second: 50 });
    await finished(server, otherOp.operation!.operation_id);
    const later = await ok(server, 'operation.get', { operation_id: id });
    expect(later.operation.counts.done).toBe(doneAtCancel);
    expect(later.operation.status).toBe('cancelled');
    const again = await ok(server, 'operation.cancel', { operation_id: id });
    expect(again.cancelled).toBe(false);
    await fails(server, 'operation.get', { operation_id: 'op_missing' }, 'NOT_FOUND');
    await fails(server, 'operation.cancel', { operation_id: 'op_missing' }, 'NOT_FOUND');

    // Pages of operation.list: newest first, each once, cursors bound to the filter. Outcomes are
    // recorded as deliveries settle (the cancelled one's too): compare once none is pending.
    await expect.poll(async () => (await ok(server, 'operation.list', { limit: 500 })).operations.every((o) => o.outcomes.pending === 0), { timeout: 20_000, message: 'outcomes to settle' }).toBe(true);
    const all = await ok(server, 'operation.list', { limit: 500 });
    const paged = (await walk(server, 'operation.list', { limit: 2 })).items.map((o) => o.operation_id);
    expect(paged).toEqual(all.operations.map((o) => o.operation_id));
    // A page counts each operation's outcomes as operation.get does (both kinds, in one read).
    for (const listed of all.operations) {
      expect({ id: listed.operation_id, outcomes: listed.outcomes }).toEqual({ id: listed.operation_id, outcomes: (await ok(server, 'operation.get', { operation_id: listed.operation_id })).operation.outcomes });
    }
    expect(all.operations.some((o) => o.outcomes.dead_lettered > 0)).toBe(true);
    expect(all.operations.length).toBeGreaterThanOrEqual(4);
    const firstPage = await ok(server, 'operation.list', { limit: 1 });
    await fails(server, 'operation.list', { limit: 1, status: 'running', cursor: firstPage.next_cursor }, 'INVALID_CURSOR');

    const listed = await ok(server, 'operation.list', { status: 'cancelled' });
    expect(listed.operations.map((o) => o.operation_id)).toContain(id);
    expect(listed.operations.every((o) => o.status === 'cancelled')).toBe(true);
  });

  it('stop_after_failures pauses a redrive into a still-broken subscriber; a paused operation can be cancelled', async () => {
    const ids = await publishCharges(server, 8, 'stop-after');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 4, stop_after_failures: 2 });
    expect(applied.operation!.stop_after_failures).toBe(2);
    const id = applied.operation!.operation_id;
    const paused = await finished(server, id);
    expect(paused.status).toBe('paused');
    expect(paused.outcomes.dead_lettered).toBeGreaterThanOrEqual(2);
    expect(paused.counts.done).toBeLessThan(8);
    // It stays paused: nothing more is sent.
    await waitForQuiet(server);
    const still = (await ok(server, 'operation.get', { operation_id: id })).operation;
    expect(still).toMatchObject({ status: 'paused', counts: paused.counts });
    expect((await ok(server, 'operation.list', { status: 'paused' })).operations.map((o) => o.operation_id)).toContain(id);
    const cancelled = await ok(server, 'operation.cancel', { operation_id: id });
    expect(cancelled).toMatchObject({ cancelled: true, operation: { status: 'cancelled' } });
    await expectCountsAddUp(server, id);
  });

  it('past operations read the same after a reset, and say that their records were removed', async () => {
    const ids = await publishCharges(server, 3, 'before-reset');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100 });
    const id = applied.operation!.operation_id;
    await finished(server, id);
    const replayEstimate = await ok(server, 'event.replay', { dry_run: true, event_ids: ids, subscriber_ids: ['note-charge'] });
    const replay = await ok(server, 'event.replay', { dry_run: false, event_ids: ids, subscriber_ids: ['note-charge'], expected_plan_hash: replayEstimate.plan.plan_hash, rate_per_second: 100 });
    const replayed = await finished(server, replay.operation!.operation_id);
    expect(replayed).toMatchObject({ status: 'completed', outcomes: { delivered: 3, dead_lettered: 0, pending: 0 } });
    await waitForQuiet(server);
    const before = await Promise.all([id, replayed.operation_id].map((operation_id) => ok(server, 'operation.get', { operation_id })));
    expect(before[0]!.operation).toMatchObject({ status: 'completed_with_failures', outcomes: { dead_lettered: 3 } });

    const preview = await ok(server, 'runtime.nuke', { dry_run: true });
    await ok(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string });
    const after = await Promise.all([id, replayed.operation_id].map((operation_id) => ok(server, 'operation.get', { operation_id })));
    for (const [i, read] of after.entries()) {
      const { records_removed_at, updated_at: _u, ...operation } = read.operation;
      const { updated_at: _b, ...was } = before[i]!.operation;
      expect(records_removed_at).toBeTruthy();
      expect(operation).toEqual(was);
      expect(read.items).toEqual(before[i]!.items);
    }
  });

  it('a reset cancels running operations', async () => {
    const ids = await publishCharges(server, 5, 'reset');
    const selection = { dead_letter_ids: (await deadLettersOf(server, ids)).map((l) => l.dead_letter_id) };
    const estimate = await ok(server, 'event.redrive', { dry_run: true, ...selection });
    const applied = await ok(server, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 0.5 });
    // The operation keeps sending (and its deliveries keep failing and retrying) between a preview
    // and its apply, which may then be PLAN_STALE: preview again, as an operator would.
    let reset: Result<'runtime.nuke'> | undefined;
    for (let attempt = 0; attempt < 5 && !reset; attempt++) {
      const preview = await ok(server, 'runtime.nuke', { dry_run: true });
      const res = await server.rpc('runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string });
      if (res.error && res.error.data?.code !== 'PLAN_STALE') throw new Error(`runtime.nuke failed: ${JSON.stringify(res.error)}`);
      reset = res.result;
    }
    expect(reset!.quiescence.cancelled_operations).toBeGreaterThanOrEqual(1);
    const op = await ok(server, 'operation.get', { operation_id: applied.operation!.operation_id });
    expect(op.operation.status).toBe('cancelled');
    expect(op.operation.error).toMatch(/reset/);
  });
});
