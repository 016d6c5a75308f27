/**
 * On SQLite the indexes on mostly-null columns (a delivery's reason code and redrive source, an
 * event's entity) hold only the rows with a value, and the reads that filter on those columns
 * still walk them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NewDeliveryRow } from '@switchboard/store';
import { Store } from '../../../src/store';
import { entriesOf, queryPlanOf, readOnly } from './query-plan';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-sparse-indexes-'));
  store = await Store.open({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const AT = '2026-05-01T12:00:00.000Z';

function delivery(id: string, fields: Partial<NewDeliveryRow> = {}): NewDeliveryRow {
  return {
    delivery_id: id,
    run_id: 'run-1',
    subscriber_id: 'sub',
    subscriber_type: 'node',
    status: 'delivered',
    attempts: 1,
    max_attempts: 3,
    next_attempt_at: AT,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    reason_code: null,
    session_id: null,
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

async function append(eventId: string, entityId: string | null, deliveries: NewDeliveryRow[]): Promise<void> {
  await store.transaction((tx) =>
    store.runWrites.appendEvent(
      tx,
      { event_id: eventId, event_name: 'tick', created_at: AT, source: 'test', payload: '{}', entity_id: entityId, run_id: 'run-1', chain_depth: 0, parent_event_id: null, has_dead_letter: 0, replay_of_event_id: null },
      deliveries,
    ),
  );
}

it('keeps only the rows with a value in the reason, redrive and entity indexes', async () => {
  for (let i = 0; i < 20; i++) await append(`evt-${i}`, null, [delivery(`d-${i}`)]);
  await append('evt-failed', 'ticket-1', [delivery('d-failed', { status: 'failed', reason_code: 'HANDLER_ERROR' }), delivery('d-redrive', { redrive_of_dead_letter_id: 'dl-1' })]);

  const entries = readOnly(store.location, (db) => ({
    reason: entriesOf(db, 'deliveries_reason_page'),
    redrive: entriesOf(db, 'deliveries_redrive_of'),
    entity: entriesOf(db, 'events_entity'),
    // A full index beside them: one entry per delivery.
    event: entriesOf(db, 'deliveries_event'),
  }));
  expect(entries).toEqual({ reason: 1, redrive: 1, entity: 1, event: 22 });
});

it('answers a filter on one of those values from its index', () => {
  const plans = readOnly(store.location, (db) => [
    queryPlanOf(db, 'select delivery_id from deliveries where reason_code = ? order by event_created_at desc, event_seq desc limit 51'),
    queryPlanOf(db, 'select delivery_id from deliveries where redrive_of_dead_letter_id = ?'),
    queryPlanOf(db, 'select seq from events where entity_id = ? order by created_at desc, seq desc limit 51'),
  ]);
  expect(plans[0]).toContain('USING INDEX deliveries_reason_page');
  expect(plans[1]).toContain('deliveries_redrive_of');
  expect(plans[2]).toContain('events_entity');
});
