/** Mailbox items of a test's own, published through the real runtime. */
import type { Result } from '@switchboard/contract';
import { expect, type SharedServer } from './fixtures';

type MailboxItem = Result<'mailbox.list'>['items'][number];

/** The pending item of a type the runtime made for a ticket, once it exists. */
export async function pendingItemFor(server: SharedServer, type: 'refund_approval' | 'fraud_review', ticketId: string): Promise<MailboxItem> {
  let item: MailboxItem | undefined;
  await expect(async () => {
    const { items } = await server.rpc('mailbox.list', { filter: { status: 'pending', type }, limit: 500 });
    item = items.find((i) => i.payload.ticket_id === ticketId);
    expect(item, `the ${type} for ${ticketId}`).toBeDefined();
  }).toPass({ timeout: 45_000 });
  return item!;
}

/** Resolves once nothing runs and no delivery waits (publishes may still queue behind a paused ingress). */
async function runsSettled(server: SharedServer): Promise<void> {
  await expect
    .poll(async () => {
      const s = await server.rpc('runtime.status');
      return s.active_runs === 0 && s.pending_deliveries === 0;
    }, { message: 'the runtime to settle', timeout: 45_000 })
    .toBe(true);
}

/**
 * A fresh refund approval of its own (published through the real runtime), so tests never race
 * each other or the demo for the same item. The ticket is opened first (a question the triage
 * agent answers without a refund), so it has a customer and its gates pass unless the amount is
 * above the refund limit.
 */
export async function freshRefundItem(server: SharedServer, tag: string, amount = 42.5) {
  const ticketId = `E2E-${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const entityId = `ticket-${ticketId}`;
  await server.rpc('event.publish', {
    event_name: 'ticket.created',
    entity_id: entityId,
    payload: { ticket_id: ticketId, order_id: 'ORD-E2E', customer: 'E2E Customer', subject: `e2e ${tag}: question about my order`, channel: 'email' },
  });
  await expect(async () => expect((await server.rpc('runtime.lookup', { id: entityId })).kind, `the ticket ${ticketId}`).toBe('entity')).toPass({ timeout: 45_000 });
  await server.rpc('event.publish', {
    event_name: 'refund.requested',
    entity_id: entityId,
    payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount, currency: 'EUR', reason: `e2e ${tag}` },
  });
  const item = await pendingItemFor(server, 'refund_approval', ticketId);
  // Let the rest of the run (entity updates, risk scoring) settle, so the sheet's revision is final.
  await runsSettled(server);
  return { mailboxId: item.mailbox_id, ticketId, entityId };
}
