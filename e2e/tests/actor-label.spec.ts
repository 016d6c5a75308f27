/**
 * One actor label everywhere: an operation's row and a mailbox item's history and decision name
 * the acting person the same way, their display name, with the user and token ids on hover.
 */
import type { Locator } from '@playwright/test';
import { expect, test } from '../fixtures';
import { pendingItemFor } from '../mailbox-items';
import { MailboxReview } from '../pages/mailbox-page';
import { OperationsSection } from '../pages/recovery-page';
import { actorLabels } from '../pages/shell-page';

test('the acting person shows by name, with user and token ids on hover, on operations and mailbox history', async ({ signedIn: page, server }) => {
  const session = (await (await page.request.get(`${server.url}/v1/auth/session`)).json()) as { token: { id: string; name: string }; user: { id: string; display_name: string } };
  const label = session.user.display_name;
  const expectIdsOnHover = async (actor: Locator) => {
    await expect(actor).toHaveAttribute('title', new RegExp(`user ${session.user.id}.*token .*${session.token.id}`));
  };

  const published = await server.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-actor' } });
  const estimate = await server.rpc('event.replay', { dry_run: true, event_ids: [published.event_id!] });
  const replay = await server.rpc('event.replay', { dry_run: false, event_ids: [published.event_id!], expected_plan_hash: estimate.plan.plan_hash });
  await page.goto(`/runtime?operation=${replay.operation!.operation_id}#operations`);
  const operations = new OperationsSection(page);
  await expect(actorLabels(operations.root).first()).toHaveText(label);
  await expectIdsOnHover(actorLabels(operations.root).first());

  const ticketId = `E2E-actor-${Date.now().toString(36)}`;
  await server.rpc('event.publish', {
    event_name: 'refund.requested',
    entity_id: `ticket-${ticketId}`,
    payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount: 9.5, currency: 'EUR', reason: 'e2e actor' },
  });
  const item = await pendingItemFor(server, 'refund_approval', ticketId);
  await server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason_code: 'other', reason: 'e2e: actor label' });
  const review = await MailboxReview.open(page, item.mailbox_id);
  await expect(actorLabels(review.historyEntries('rejected')).first()).toHaveText(label);
  await expect(actorLabels(review.decided).first()).toHaveText(label);
  await expectIdsOnHover(actorLabels(review.decided).first());
});
