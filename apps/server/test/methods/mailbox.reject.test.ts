/**
 * mailbox.reject over real HTTP against the real runtime (the control test bundle): every error code it
 * can return, idempotent replays and the concurrency guarantees.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { keyMaker, withControlServer } from './method-servers';
import { count, fails, ok, openOrderItem, waitForQuiet } from '../control-helpers';

let server: TestServer;
let tokenId: string;
withControlServer(async (s) => {
  server = s;
  tokenId = (await server.store.tokens.list())[0]!.id;
});
const newKey = keyMaker('rej');

describe('mailbox.reject', () => {
  it('rejects with a reason: status rejected, history entry with the token id, no downstream event', async () => {
    const item = await openOrderItem(server, 'R1');
    await waitForQuiet(server);
    const eventsBefore = await count(server, 'events');
    const result = await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: '  not eligible  ', reason_code: 'out_of_stock' });
    expect(result).toEqual({ ok: true, status: 'rejected', mailbox_decision_id: expect.stringMatching(/^dec_/), idempotency_replayed: false });
    expect(result).not.toHaveProperty('downstream_event_id');
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.item).toMatchObject({ status: 'rejected', decision: 'rejected', decided_at: expect.any(String) });
    const entry = got.history.find((h: any) => h.action === 'rejected');
    expect(entry).toMatchObject({ actor_token_id: tokenId, reason: 'not eligible', reason_code: 'out_of_stock' });
    expect(entry!.actor_token_id).not.toBe(server.token);
    await waitForQuiet(server);
    expect(await count(server, 'events')).toBe(eventsBefore);
  });

  it('requires a non-empty reason of at most 2000 characters', async () => {
    const item = await openOrderItem(server, 'R2');
    for (const reason of [undefined, '', '   ', 'x'.repeat(2001)]) {
      const error = await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason_code: 'out_of_stock', ...(reason === undefined ? {} : { reason }) }, 'INVALID_PARAMS');
      expect(error.data.details.issues?.[0]?.path).toBe('reason');
    }
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
  });

  it('MAILBOX_NOT_PENDING on a decided item, NOT_FOUND on an unknown one', async () => {
    const item = await openOrderItem(server, 'R3');
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'first', reason_code: 'other' });
    const again = await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'second', reason_code: 'other' }, 'MAILBOX_NOT_PENDING');
    expect(again.data.details.status).toBe('rejected');
    const missing = await fails(server, 'mailbox.reject', { mailbox_id: 'mbx_missing', reason: 'x', reason_code: 'other' }, 'NOT_FOUND');
    expect(missing.data.details).toMatchObject({ id: 'mbx_missing' });
    const history = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).history.filter((h: any) => h.action !== 'created');
    expect(history).toHaveLength(1);
  });

  it('replays with idempotency_replayed true and conflicts on a different body', async () => {
    const item = await openOrderItem(server, 'R4');
    const key = newKey();
    const first = await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'dup', reason_code: 'other', idempotency_key: key });
    const replay = await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'dup', reason_code: 'other', idempotency_key: key });
    expect(replay).toEqual({ ...first, idempotency_replayed: true });
    await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'other', reason_code: 'other', idempotency_key: key }, 'IDEMPOTENCY_CONFLICT');
    const history = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).history.filter((h: any) => h.action === 'rejected');
    expect(history).toHaveLength(1);
  });

  it('a type that declares reason codes needs one, or "other" with the reason saying why; nothing is decided without', async () => {
    const item = await openOrderItem(server, 'R5');
    const missing = await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'no stock left' }, 'INVALID_PARAMS');
    expect(missing.data.retryable).toBe(false);
    expect(missing.data.details).toEqual({ field: 'reason_code', allowed: ['out_of_stock', 'suspected_fraud', 'other'] });
    expect(missing.message).toMatch(/reason_code is required for order_approval/);
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'customer changed their mind', reason_code: 'other' });
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.item).toMatchObject({ status: 'rejected', reason_code: 'other' });
    expect(got.history.find((h: any) => h.action === 'rejected')).toMatchObject({ reason: 'customer changed their mind', reason_code: 'other' });
  });
});
