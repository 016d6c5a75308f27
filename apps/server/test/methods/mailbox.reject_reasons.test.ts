/**
 * A decision keeps what was seen (the sheet when it was decided, the payload it emitted), and a
 * reject may carry one of the bundle's reason codes: stored, validated, filterable and counted.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, openOrderItem, waitForQuiet } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
let token: { id: string; name: string };
withControlServer(async (s) => {
  server = s;
  const t = (await server.store.tokens.list())[0]!;
  token = { id: t.id, name: t.name };
});

describe('decisions as they were seen', () => {
  it('an approved item keeps its sheet as decided while the entity moves on, and the payload it emitted', async () => {
    const item = await openOrderItem(server, 'SEEN1', 42);
    await waitForQuiet(server);
    const before = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(before.decided_sheet).toBeUndefined();
    const revision = before.decision_sheet.entity_context.entity!.entity.revision;
    const approved = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: revision });
    await waitForQuiet(server);

    const after = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    // The approval's event moved the entity on: "now" differs, "at decision" is what the approver saw.
    expect(after.decision_sheet.entity_context.entity!.entity.revision).toBeGreaterThan(revision);
    expect(after.decision_sheet.entity_context.entity!.entity.current_state).toBe('approved');
    expect(after.decided_sheet).toEqual(before.decision_sheet);
    expect(after.emitted_payload).toEqual(before.payload);
    expect(after.emitted_event_id).toBe(approved.downstream_event_id);
    const entry = after.history.find((h) => h.action === 'approved')!;
    expect(entry).toMatchObject({ actor_token_id: token.id, actor_token_name: token.name });
  });

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

  it('mailbox.list filters by reason code and mailbox.reject_reasons counts by code', async () => {
    for (const [order, code] of [['CODE3', 'suspected_fraud'], ['CODE4', 'suspected_fraud'], ['CODE5', 'out_of_stock']] as const) {
      const item = await openOrderItem(server, order);
      await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'r', reason_code: code });
    }
    const fraud = await ok(server, 'mailbox.list', { filter: { reason_code: 'suspected_fraud' }, limit: 500 });
    expect(fraud.items).toHaveLength(2);
    expect(fraud.items.every((i) => i.reason_code === 'suspected_fraud' && i.status === 'rejected')).toBe(true);
    const { reasons } = await ok(server, 'mailbox.reject_reasons', {});
    expect(reasons).toEqual([
      { type: 'order_approval', code: 'out_of_stock', label: 'Out of stock', count: 2 },
      { type: 'order_approval', code: 'suspected_fraud', label: 'Suspected fraud', count: 2 },
      { type: 'other_review', code: 'suspected_fraud', label: 'Suspected fraud (other)', count: 0 },
    ]);
    expect((await ok(server, 'mailbox.reject_reasons', { type: 'order_approval' })).reasons.map((r) => r.count)).toEqual([2, 2]);
    expect((await ok(server, 'mailbox.reject_reasons', { type: 'nothing_like_it' })).reasons).toEqual([]);
  });
});
