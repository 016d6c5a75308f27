/**
 * The change feed on both engines: one row per transaction (and per group commit, kinds merged),
 * nothing for a transaction that changed nothing tracked or rolled back, keyset reads in seq
 * order, pruning; and the listener: each change once and in order, from this process and from
 * another connection, and on PostgreSQL after its listening connection was killed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME, type ChangeListener, type ChangeRecord, type Store } from '@switchboard/store';
import { databaseOf, openTestStore, sql, testDatabaseFor, testEngine } from '@switchboard/store/testing';

let dir: string;
let store: Store;
const opened: Store[] = [];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-change-feed-'));
  store = await openTestStore(dir);
  opened.push(store);
  store.changes.identify('server-test');
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A second store on the same data: another process, as far as the feed can tell. */
async function otherProcess(): Promise<Store> {
  const other = await openTestStore(dir);
  opened.push(other);
  other.changes.identify('server-other');
  return other;
}

const allChanges = () => store.changes.after(0, 1000);

let eventCounter = 0;
function eventRow() {
  eventCounter += 1;
  return {
    event_id: `evt_feed_${eventCounter}`,
    event_name: 'ticket.created',
    created_at: new Date().toISOString(),
    source: 'test',
    payload: '{}',
    entity_id: null,
    run_id: null,
    chain_depth: 0,
    parent_event_id: null,
    has_dead_letter: 0,
  };
}

async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Every change the listener hands out, in the order it handed them out. */
function collect(listener: ChangeListener): ChangeRecord[] {
  const seen: ChangeRecord[] = [];
  listener.subscribe((batch) => seen.push(...batch));
  return seen;
}

describe('writing the feed', () => {
  it('a transaction records one row with the kinds its writes marked, merged, and the server that made it', async () => {
    await store.transaction(async (tx) => {
      await store.runWrites.appendEvent(tx, eventRow(), []);
      await store.runWrites.appendEvent(tx, eventRow(), []);
      store.changes.mark(tx, 'mailbox');
    });
    const rows = await allChanges();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kinds: ['events', 'mailbox'], server_id: 'server-test' });
  });

  it('a transaction that wrote deliveries waiting for a claim is claimable; deliveries leased to their writer are not', async () => {
    const delivery = (id: string, status: 'pending' | 'in_progress') => ({
      delivery_id: id,
      run_id: null,
      subscriber_id: 'sub',
      subscriber_type: 'node',
      status,
      attempts: status === 'pending' ? 0 : 1,
      max_attempts: 3,
      next_attempt_at: new Date().toISOString(),
      lease_owner: status === 'pending' ? null : 'server-test',
      lease_expires_at: status === 'pending' ? null : new Date(Date.now() + 60_000).toISOString(),
      last_error: null,
      reason_code: null,
      session_id: null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    await store.transaction((tx) => store.runWrites.appendEvents(tx, [{ event: eventRow(), deliveries: [delivery('d-leased', 'in_progress')] }]));
    await store.transaction((tx) => store.runWrites.appendEvents(tx, [{ event: eventRow(), deliveries: [delivery('d-leased-2', 'in_progress'), delivery('d-pending', 'pending')] }]));
    await store.transaction((tx) => store.runWrites.appendEvent(tx, eventRow(), [delivery('d-pending-2', 'pending')]));
    // The contract's kinds only: claimable is for servers, not for runtime.changed.
    expect((await allChanges()).map((c) => [c.kinds, c.claimable])).toEqual([
      [['events'], false],
      [['events'], true],
      [['events'], true],
    ]);
  });

  it('a transaction that marked nothing, or rolled back, records nothing', async () => {
    await store.transaction(async (tx) => {
      await store.runtimeState.set('feed-test', 'v', tx);
    });
    await expect(
      store.transaction(async (tx) => {
        await store.runWrites.appendEvent(tx, eventRow(), []);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await allChanges()).toEqual([]);
  });

  it('a group commit records one row for the group, without the kinds of a member that rolled back', async () => {
    const before = { ...store.groupCommit.stats };
    const publish = () => store.transactionInGroup((tx) => store.runWrites.appendEvent(tx, eventRow(), []));
    const failing = store.transactionInGroup(async (tx) => {
      store.changes.mark(tx, 'mailbox');
      throw new Error('member failed');
    });
    const results = await Promise.allSettled([...Array.from({ length: 10 }, publish), failing, ...Array.from({ length: 10 }, publish)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    // All were queued in one turn of the event loop: one group, so one row.
    expect(store.groupCommit.stats.groups - before.groups).toBe(1);
    const rows = await allChanges();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.kinds).toEqual(['events']);
  });

  it('repositories that open their own transaction record their change (tokens created and revoked)', async () => {
    const { token } = await store.tokens.create('feed-test');
    await store.tokens.revoke(token.id);
    expect((await allChanges()).map((c) => c.kinds)).toEqual([['tokens'], ['tokens']]);
  });
});

describe('reading the feed', () => {
  it('after(seq, limit) reads by keyset in seq order, and latestSeq is the newest', async () => {
    expect(await store.changes.latestSeq()).toBe(0);
    for (const kind of ['events', 'mailbox', 'operations', 'tokens', 'ingress'] as const) await store.transaction(async (tx) => store.changes.mark(tx, kind));
    const all = await allChanges();
    expect(all.map((c) => c.kinds[0])).toEqual(['events', 'mailbox', 'operations', 'tokens', 'ingress']);
    const seqs = all.map((c) => c.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(await store.changes.latestSeq()).toBe(seqs.at(-1));
    const page = await store.changes.after(seqs[1]!, 2);
    expect(page.map((c) => c.seq)).toEqual(seqs.slice(2, 4));
    expect(await store.changes.after(seqs.at(-1)!, 10)).toEqual([]);
  });

  it('pruning deletes changes older than the window and always keeps the newest', async () => {
    for (let i = 0; i < 3; i++) await store.transaction(async (tx) => store.changes.mark(tx, 'events'));
    const newest = await store.changes.latestSeq();
    expect(await store.changes.prune(60 * 60 * 1000)).toBe(0);
    expect(await store.changes.prune(0)).toBe(2);
    expect((await allChanges()).map((c) => c.seq)).toEqual([newest]);
    expect(await store.changes.latestSeq()).toBe(newest);
  });
});

describe('following the feed', () => {
  it('hands out each change committed after it started once, in seq order, from this process without waiting for the poll', async () => {
    await store.transaction(async (tx) => store.changes.mark(tx, 'events'));
    const listener = await store.followChanges({ pollMs: 60_000 });
    const seen = collect(listener);
    for (let i = 0; i < 5; i++) await store.transaction(async (tx) => store.changes.mark(tx, 'mailbox'));
    await Promise.all(Array.from({ length: 30 }, () => store.transactionInGroup(async (tx) => store.changes.mark(tx, 'events'))));
    const expected = (await allChanges()).slice(1);
    await until('every change', () => seen.length >= expected.length);
    expect(seen).toEqual(expected);
    expect(seen.every((c) => c.server_id === 'server-test')).toBe(true);
  });

  it('hears of a change another process committed', async () => {
    // SQLite: only the poll can tell of another process's commit. PostgreSQL: the notification does,
    // with the poll too slow to be what delivered it.
    const listener = await store.followChanges({ pollMs: testEngine() === 'sqlite' ? 100 : 60_000 });
    const seen = collect(listener);
    const other = await otherProcess();
    await other.tokens.create('from-the-cli');
    const change = await until('the other process change', () => seen.find((c) => c.kinds.includes('tokens')));
    expect(change.server_id).toBe('server-other');
    if (testEngine() === 'postgres') expect(listener.stats.notifications).toBeGreaterThan(0);
  });
});

describe.runIf(testEngine() === 'postgres')('following the feed on PostgreSQL', () => {
  const terminateListener = () =>
    sql`select pg_terminate_backend(pid) as terminated from pg_stat_activity where application_name = ${LISTENER_APPLICATION_NAME} and datname = current_database()`.execute(
      databaseOf(store),
    );

  it('reconnects after its connection was terminated and reads what committed meanwhile', async () => {
    // No poll in this test: only the reconnection's catch-up can deliver what committed while it was down.
    const listener = await store.followChanges({ pollMs: 60_000, reconnectMinMs: 300 });
    const seen = collect(listener);
    expect(listener.listening).toBe(true);
    const other = await otherProcess();
    const { rows } = await terminateListener();
    expect(rows).toHaveLength(1);
    await until('the connection loss to be noticed', () => !listener.listening);
    // Committed on another connection while nobody listens: no notification reaches this process.
    await other.transaction(async (tx) => other.changes.mark(tx, 'mailbox'));
    await other.transaction(async (tx) => other.changes.mark(tx, 'operations'));
    await until('the listener to reconnect', () => listener.listening);
    expect(listener.stats.connections).toBe(2);
    await until('the changes made while it was down', () => seen.length >= 2);
    expect(seen.map((c) => c.kinds[0])).toEqual(['mailbox', 'operations']);
    // And it listens again: the next commit is heard without a poll.
    await other.transaction(async (tx) => other.changes.mark(tx, 'events'));
    await until('a change after the reconnect', () => seen.length >= 3);
  });

  it('holds back changes past a seq still committing, then hands them out in order; a seq that never commits is skipped', async () => {
    const listener = await store.followChanges({ pollMs: 100, gapWaitMs: 500 });
    const seen = collect(listener);
    const raw = new pg.Client({ connectionString: await testDatabaseFor(dir) });
    await raw.connect();
    try {
      // A transaction takes its seq, then stays open while a later one commits.
      await raw.query('begin');
      await raw.query(`insert into changes (kinds, server_id, created_at) values ('mailbox', 'slow', '2026-01-01T00:00:00.000Z')`);
      await store.transaction(async (tx) => store.changes.mark(tx, 'events'));
      // Polls and this process's own commit hint have run meanwhile; the later change waits.
      await until('a few reads', () => listener.stats.reads >= 3);
      expect(seen).toEqual([]);
      await raw.query(`select pg_notify('switchboard_changes', '')`);
      await raw.query('commit');
      await until('both changes', () => seen.length >= 2);
      expect(seen.map((c) => c.kinds[0])).toEqual(['mailbox', 'events']);

      // A seq taken by a transaction that rolls back never shows up: given up after gapWaitMs.
      await raw.query('begin');
      await raw.query(`insert into changes (kinds, server_id, created_at) values ('mailbox', 'slow', '2026-01-01T00:00:00.000Z')`);
      await raw.query('rollback');
      await store.transaction(async (tx) => store.changes.mark(tx, 'operations'));
      await until('the change after the rolled-back seq', () => seen.length >= 3);
      expect(seen[2]!.kinds).toEqual(['operations']);
    } finally {
      await raw.end();
    }
  });
});
