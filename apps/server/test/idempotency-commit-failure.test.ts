/**
 * A keyed call whose answer was written into its effect's transaction, and whose commit then failed
 * (a group commit can fail for all its members at once): nothing was committed, so the key must be
 * free for the client's retry rather than held "in progress" until the next boot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '@switchboard/store';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { z } from 'zod';
import { withIdempotency } from '../src/rpc/idempotency';

let dir: string;
let store: Store;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-idem-commit-'));
  store = await Store.open({ dataDir: dir });
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ref = { method: 'test.effect', tokenId: 'tok_1', key: 'key-commit-fails', serverId: 'server-test' };
const result = z.object({ ok: z.boolean() });
const noOtherEffect = async () => undefined;

test('a failed commit after the answer was written leaves the key free; the retry runs and its answer replays', async () => {
  const failedCommit = withIdempotency(store.idempotency, ref, { n: 1 }, result, noOtherEffect, (call) =>
    store.transaction(async (trx) => {
      await call.answerWith(() => ({ ok: true }))(trx, undefined);
      throw new Error('disk I/O error at commit');
    }),
  );
  await expect(failedCommit).rejects.toThrow('disk I/O error at commit');

  let ran = 0;
  const retry = () =>
    withIdempotency(store.idempotency, ref, { n: 1 }, result, noOtherEffect, (call) =>
      store.transaction(async (trx) => {
        ran++;
        await call.answerWith(() => ({ ok: true }))(trx, undefined);
        return { ok: true };
      }),
    );
  expect(await retry()).toEqual({ ok: true });
  expect(await retry()).toEqual({ ok: true });
  expect(ran).toBe(1);
});
