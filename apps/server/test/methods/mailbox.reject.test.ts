/**
 * mailbox.reject (with its typed reason codes and the sheet a decision keeps) over real HTTP against the real runtime (the control test bundle): every error code it
 * can return, idempotent replays and the concurrency guarantees.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { keyMaker, withControlServer } from './method-servers';
import { count, fails, ok, openOrderItem, waitForQuiet } from '../control-helpers';

let server: TestServer;
let tokenId: string;
let token: { id: string; name: string };
withControlServer(async (s) => {
  server = s;
  const t = (await server.store.tokens.list())[0]!;
  tokenId = t.id;
  token = { id: t.id, name: t.name };
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

describe('decisions as they were seen', () => {
  it('a rejected item keeps its sheet too, and emits nothing', async () => {
    const item = await openOrderItem(server, 'SEEN2');
    await waitForQuiet(server);
    const before = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'no', reason_code: 'other' });
    const after = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(after.decided_sheet).toEqual(before.decision_sheet);
    expect(after.emitted_payload).toBeUndefined();
    expect(after.emitted_event_id).toBeUndefined();
  });
});

describe('typed reject reasons', () => {
  it('mailbox.get offers the codes of the item type; a reject stores its code on the item and in history', async () => {
    const item = await openOrderItem(server, 'CODE1');
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.reject_reasons).toEqual([
      { code: 'out_of_stock', label: 'Out of stock' },
      { code: 'suspected_fraud', label: 'Suspected fraud' },
    ]);
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'warehouse is empty', reason_code: 'out_of_stock' });
    const after = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(after.item.reason_code).toBe('out_of_stock');
    expect(after.history.find((h) => h.action === 'rejected')).toMatchObject({ reason: 'warehouse is empty', reason_code: 'out_of_stock', actor_token_name: token.name });
  });

  it('refuses a code the bundle does not declare for the type, deciding nothing', async () => {
    const item = await openOrderItem(server, 'CODE2');
    const bad = await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'x', reason_code: 'made_up' }, 'INVALID_PARAMS');
    expect(bad.data.details).toMatchObject({ field: 'reason_code', allowed: ['out_of_stock', 'suspected_fraud', 'other'] });
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
  });
});
