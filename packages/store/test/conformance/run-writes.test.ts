/**
 * The set-based writes a batch of completions uses: several events with their deliveries in one
 * statement per table, and several runs settled in one statement, each by the same rule as one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NewDeliveryRow, NewEventRow, Store } from '@switchboard/store';
import { databaseOf, openTestStore, testEngine } from '@switchboard/store/testing';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-run-writes-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const NOW = '2026-05-01T12:00:00.000Z';

function event(id: string, runId: string): NewEventRow {
  return { event_id: id, event_name: 'tick', created_at: NOW, source: 'test', payload: '{}', entity_id: null, run_id: runId, chain_depth: 0, parent_event_id: null, has_dead_letter: 0, replay_of_event_id: null };
}

function delivery(id: string, runId: string, status: string): NewDeliveryRow {
  return {
    delivery_id: id,
    run_id: runId,
    subscriber_id: 'sub',
    subscriber_type: 'node',
    status,
    attempts: 0,
    max_attempts: 3,
    next_attempt_at: NOW,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    reason_code: null,
    session_id: null,
    created_at: NOW,
    updated_at: NOW,
  };
}

async function run(runId: string, status = 'running'): Promise<void> {
  await store.transaction((tx) =>
    store.runWrites.insertRun(tx, { run_id: runId, status, root_event_id: `evt-${runId}`, event_name: 'tick', entity_id: null, bundle_fingerprint: 'sha256:0', created_at: NOW, settled_at: null }),
  );
}

it('appends several events with their deliveries, seqs in the order given, each delivery pointing at its event', async () => {
  const seqs = await store.transaction((tx) =>
    store.runWrites.appendEvents(tx, [
      { event: event('evt-a', 'run-1'), deliveries: [delivery('d-a1', 'run-1', 'pending'), delivery('d-a2', 'run-1', 'pending')] },
      { event: event('evt-b', 'run-1'), deliveries: [] },
      { event: event('evt-c', 'run-2'), deliveries: [delivery('d-c1', 'run-2', 'pending')] },
    ]),
  );
  expect(seqs).toHaveLength(3);
  expect(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!).toBe(true);
  const events = await databaseOf(store).selectFrom('events').select(['event_id', 'seq']).orderBy('seq').execute();
  expect(events.map((e) => [e.event_id, Number(e.seq)])).toEqual([
    ['evt-a', seqs[0]],
    ['evt-b', seqs[1]],
    ['evt-c', seqs[2]],
  ]);
  const deliveries = await databaseOf(store).selectFrom('deliveries').select(['delivery_id', 'event_id', 'event_seq', 'event_created_at']).orderBy('delivery_id').execute();
  expect(deliveries.map((d) => [d.delivery_id, d.event_id, Number(d.event_seq), d.event_created_at])).toEqual([
    ['d-a1', 'evt-a', seqs[0], NOW],
    ['d-a2', 'evt-a', seqs[0], NOW],
    ['d-c1', 'evt-c', seqs[2], NOW],
  ]);
});

it('appends events whose seqs the caller does not read (none has deliveries), after the statement before them and before the commit', async () => {
  const seqs = await store.transaction(async (tx) => {
    const written = await store.runWrites.appendEvents(tx, [{ event: event('evt-x', 'run-1'), deliveries: [] }, { event: event('evt-y', 'run-1'), deliveries: [] }], { seqs: false });
    // On PostgreSQL the insert goes out with this statement, which sees its rows.
    return { written, seen: await store.runWrites.eventChain(tx, 'evt-y') };
  });
  expect(seqs).toEqual({ written: [], seen: { chain_depth: 0, run_id: 'run-1' } });
  const events = await databaseOf(store).selectFrom('events').select('event_id').orderBy('seq').execute();
  expect(events.map((e) => e.event_id)).toEqual(['evt-x', 'evt-y']);
});

it('settles several runs in one statement: the quiet ones, failed when a dead letter stands, and no other', async () => {
  for (const id of ['run-done', 'run-open', 'run-dead', 'run-redriven']) await run(id);
  await run('run-cancelled', 'cancelled');
  await store.transaction((tx) =>
    store.runWrites.appendEvents(tx, [
      { event: event('evt-done', 'run-done'), deliveries: [delivery('d-done', 'run-done', 'delivered')] },
      { event: event('evt-open', 'run-open'), deliveries: [delivery('d-open-1', 'run-open', 'delivered'), delivery('d-open-2', 'run-open', 'in_progress')] },
      { event: event('evt-dead', 'run-dead'), deliveries: [delivery('d-dead', 'run-dead', 'failed')] },
      { event: event('evt-redriven', 'run-redriven'), deliveries: [delivery('d-redriven', 'run-redriven', 'failed')] },
      { event: event('evt-cancelled', 'run-cancelled'), deliveries: [] },
    ]),
  );
  const deadLetter = (id: string, runId: string, redriven: string | null) => ({
    dead_letter_id: id,
    event_id: `evt-${runId.slice(4)}`,
    event_seq: 1,
    event_created_at: NOW,
    delivery_id: `d-${runId.slice(4)}`,
    run_id: runId,
    subscriber_id: 'sub',
    chain_depth: 0,
    created_at: NOW,
    failure_type: 'handler_error',
    retry_count: 2,
    error_message: 'boom',
    handler_node: 'sub',
    reason_code: 'handler_error',
    redriven_at: redriven,
  });
  await databaseOf(store)
    .insertInto('dead_letters')
    .values([deadLetter('dl-1', 'run-dead', null), deadLetter('dl-2', 'run-redriven', NOW)])
    .execute();

  const later = '2026-05-01T12:05:00.000Z';
  const settled = await store.transaction((tx) => store.runWrites.settleManyWhenQuiet(tx, ['run-done', 'run-open', 'run-dead', 'run-redriven', 'run-cancelled', 'run-unknown'], later));
  expect(Object.fromEntries(settled)).toEqual({ 'run-done': 'completed', 'run-dead': 'failed', 'run-redriven': 'completed' });
  const runs = await databaseOf(store).selectFrom('runs').select(['run_id', 'status', 'settled_at']).orderBy('run_id').execute();
  expect(runs).toEqual([
    { run_id: 'run-cancelled', status: 'cancelled', settled_at: null },
    { run_id: 'run-dead', status: 'failed', settled_at: later },
    { run_id: 'run-done', status: 'completed', settled_at: later },
    { run_id: 'run-open', status: 'running', settled_at: null },
    { run_id: 'run-redriven', status: 'completed', settled_at: later },
  ]);
  // Settled once: a second check changes nothing.
  expect((await store.transaction((tx) => store.runWrites.settleManyWhenQuiet(tx, ['run-done', 'run-dead'], NOW))).size).toBe(0);
});

it('appends events as given whatever their text, and columns left out take their defaults', async () => {
  // On PostgreSQL the rows travel as one JSON parameter, and text JSON would change (a lone
  // surrogate) goes as a VALUES list instead. Either way, what is stored is what was given.
  const tricky = '{"q":"\\"quoted\\" back\\\\slash \\\\u0000 as text","nl":"a\\nb","é":"🚀"}';
  const loneSurrogate = 'entity-\ud800-x';
  // An optional column set to undefined is left out (and takes its default).
  const withDefaults: NewEventRow = { ...event('evt-defaults', 'run-1'), replay_of_event_id: undefined };
  await store.transaction((tx) =>
    store.runWrites.appendEvents(tx, [
      { event: { ...event('evt-tricky', 'run-1'), payload: tricky, entity_id: 'ent-"\\\'' }, deliveries: [] },
      { event: { ...event('evt-odd', 'run-1'), entity_id: loneSurrogate }, deliveries: [] },
    ]),
  );
  await store.transaction((tx) => store.runWrites.appendEvents(tx, [{ event: event('evt-plain', 'run-1'), deliveries: [] }]));
  await store.transaction((tx) => store.runWrites.appendEvents(tx, [{ event: withDefaults, deliveries: [] }]));
  const rows = await databaseOf(store).selectFrom('events').select(['event_id', 'payload', 'entity_id', 'chain_depth', 'has_dead_letter']).orderBy('seq').execute();
  expect(rows.map((r) => [r.event_id, r.payload, r.entity_id, Number(r.chain_depth), Number(r.has_dead_letter)])).toEqual([
    ['evt-tricky', tricky, 'ent-"\\\'', 0, 0],
    // Stored, not refused: PostgreSQL receives UTF-8 with U+FFFD in its place (SQLite keeps bytes
    // of its own that read back as replacement characters).
    ['evt-odd', '{}', testEngine() === 'postgres' ? 'entity-\ufffd-x' : expect.stringMatching(/^entity-\ufffd+-x$/), 0, 0],
    ['evt-plain', '{}', null, 0, 0],
    ['evt-defaults', '{}', null, 0, 0],
  ]);
});
