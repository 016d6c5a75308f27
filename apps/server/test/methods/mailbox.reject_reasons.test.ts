/**
 * mailbox.reject_reasons: the reason codes the bundle declares for each item type, with how many
 * rejects carry each (mailbox.reject stores and validates the codes; see mailbox.reject.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, openOrderItem } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('mailbox.reject_reasons', () => {
  it('mailbox.list filters by reason code and mailbox.reject_reasons counts by code', async () => {
    for (const [order, code] of [['CODE1', 'out_of_stock'], ['CODE3', 'suspected_fraud'], ['CODE4', 'suspected_fraud'], ['CODE5', 'out_of_stock']] as const) {
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

  it('refuses params outside the contract: INVALID_PARAMS', async () => {
    await fails(server, 'mailbox.reject_reasons', { type: 7 }, 'INVALID_PARAMS');
    await fails(server, 'mailbox.reject_reasons', { code: 'out_of_stock' }, 'INVALID_PARAMS');
  });
});
