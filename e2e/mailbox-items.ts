/** Mailbox items of a test's own, published through the real runtime. */
import { eventually, type SharedServer } from './fixtures';

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
  await eventually(`the ticket ${ticketId}`, async () => (await server.rpc('runtime.lookup', { id: entityId })).kind === 'entity');
  await server.rpc('event.publish', {
    event_name: 'refund.requested',
    entity_id: entityId,
    payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount, currency: 'EUR', reason: `e2e ${tag}` },
  });
  const item = await eventually(`the refund approval for ${ticketId}`, async () => {
    const { items } = await server.rpc('mailbox.list', { filter: { status: 'pending', type: 'refund_approval' }, limit: 500 });
    return items.find((i) => i.payload.ticket_id === ticketId);
  });
  // Let the rest of the run (entity updates, risk scoring) settle, so the sheet's revision is final.
  await eventually('the runtime to settle', async () => {
    const s = await server.rpc('runtime.status');
    return s.active_runs === 0 && s.pending_deliveries === 0;
  });
  return { mailboxId: item.mailbox_id, ticketId, entityId };
}
