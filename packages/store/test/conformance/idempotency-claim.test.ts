/**
 * The idempotency claim on both engines: of many concurrent duplicates exactly one is claimed and
 * none fails (on PostgreSQL each claim runs on its own pooled connection, really at once); the
 * stored answer is replayed; another body under the key conflicts; an expired record is replaced.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IDEMPOTENCY_RETENTION_MS, type Store } from '@switchboard/store';
import { openTestStore } from '@switchboard/store/testing';

let dir: string;
let store: Store;
let now = Date.parse('2026-06-01T10:00:00.000Z');
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-idempotency-'));
  store = await openTestStore(dir, { clock: { now: () => new Date(now) } });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ref = { method: 'event.publish', tokenId: 'tok_1', key: 'key-1' };

it('of 20 concurrent identical claims exactly one is claimed and the others see it in progress', async () => {
  // Open the pool's connections first (PostgreSQL), so the claims below really overlap.
  await Promise.all(Array.from({ length: 10 }, () => store.ping()));
  const claims = await Promise.all(Array.from({ length: 20 }, () => store.idempotency.claim(ref, 'hash-a')));
  expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
  expect(claims.filter((c) => c.kind === 'in_progress')).toHaveLength(19);
});

it('replays the stored answer, refuses another body, and replaces a record once it expired', async () => {
  expect(await store.idempotency.claim(ref, 'hash-a')).toEqual({ kind: 'claimed' });
  await store.idempotency.complete(ref, '{"ok":true}');
  expect(await store.idempotency.claim(ref, 'hash-a')).toEqual({ kind: 'replay', response: '{"ok":true}' });
  expect(await store.idempotency.claim(ref, 'hash-b')).toEqual({ kind: 'conflict' });
  now += IDEMPOTENCY_RETENTION_MS + 1;
  expect(await store.idempotency.claim(ref, 'hash-b')).toEqual({ kind: 'claimed' });
});
