import type { Page, Request } from '@playwright/test';
import { eventually, expect, test, type SharedServer } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

interface MailboxItem {
  mailbox_id: string;
  status: string;
  payload: Record<string, unknown>;
}
interface MailboxReview {
  item: MailboxItem;
  history: { action: string; actor_token_id: string; reason?: string }[];
  decision_sheet: { entity_context: { entity?: { entity: { revision: number } } } };
}
interface StoredEvent {
  event_id: string;
  event_name: string;
}

/**
 * A fresh refund approval of its own (published through the real runtime), so tests never race
 * each other or the demo for the same item.
 */
async function freshRefundItem(server: SharedServer, tag: string) {
  const ticketId = `E2E-${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const entityId = `ticket-${ticketId}`;
  await server.rpc('event.publish', {
    event_name: 'refund.requested',
    entity_id: entityId,
    payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount: 42.5, currency: 'EUR', reason: `e2e ${tag}` },
  });
  const item = await eventually(`the refund approval for ${ticketId}`, async () => {
    const { items } = await server.rpc<{ items: MailboxItem[] }>('mailbox.list', { filter: { status: 'pending', type: 'refund_approval' }, limit: 500 });
    return items.find((i) => i.payload.ticket_id === ticketId);
  });
  // Let the rest of the run (entity updates, risk scoring) settle, so the sheet's revision is final.
  await eventually('the runtime to settle', async () => {
    const s = await server.rpc<{ active_runs: number; pending_deliveries: number }>('runtime.status');
    return s.active_runs === 0 && s.pending_deliveries === 0;
  });
  return { mailboxId: item.mailbox_id, ticketId, entityId };
}

async function openItem(page: Page, mailboxId: string) {
  await page.goto(`/mailbox/${mailboxId}`);
  const review = page.getByTestId('mailbox-review');
  await expect(review).toBeVisible();
  return review;
}

test.describe('mailbox', () => {
  test.describe.configure({ timeout: 90_000 });

  test('reject with a reason: history entry, no longer pending, no downstream event; an empty reason cannot be sent', async ({ signedIn: page, server }) => {
    const { mailboxId, entityId } = await freshRefundItem(server, 'reject');
    const eventsBefore = (await server.rpc<{ events: StoredEvent[] }>('event.list', { filter: { entity_id: entityId }, limit: 500 })).events.map((e) => e.event_id);
    const rejectCalls: Request[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/rpc') && r.postData()?.includes('"mailbox.reject"')) rejectCalls.push(r);
    });

    const review = await openItem(page, mailboxId);
    await expect(review).toHaveAttribute('data-status', 'pending');
    await review.getByTestId('reject-button').click();
    const dialog = page.getByTestId('decision-dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('reject-consequence')).toContainText('No downstream event will be emitted');

    // Empty and whitespace-only reasons are refused in the console and never sent.
    const confirm = dialog.getByTestId('confirm-decision');
    await confirm.click();
    await expect(dialog.getByRole('alert')).toContainText('cannot be empty');
    await dialog.getByLabel('Reason (required)').fill('    ');
    await confirm.click();
    await expect(dialog.getByRole('alert')).toContainText('cannot be empty');
    await expect(dialog.getByLabel('Reason (required)')).toHaveAttribute('aria-invalid', 'true');
    expect(rejectCalls).toHaveLength(0);
    expect((await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId })).item.status).toBe('pending');

    // A quick pick fills the field, which stays editable; the character count follows.
    await dialog.getByRole('button', { name: 'Duplicate of an earlier request' }).click();
    const reason = 'Duplicate of an earlier request (e2e reject test)';
    await dialog.getByLabel('Reason (required)').fill(reason);
    await expect(dialog).toContainText(`${reason.length} / 2000 characters`);
    await confirm.click();
    await expect(dialog).toBeHidden();

    await expect(page.getByTestId('decision-outcome')).toContainText('Rejected. No downstream event was emitted.');
    await expect(review).toHaveAttribute('data-status', 'rejected');
    const decided = review.getByTestId('decided');
    await expect(decided).toContainText('Rejected');
    await expect(decided).toContainText(reason);
    await expect(decided).toContainText('cannot be decided again');
    await expect(review.getByTestId('reject-button')).toHaveCount(0);
    const entry = review.locator('[data-testid="history-entry"][data-action="rejected"]');
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText(reason);

    // The server agrees: rejected, one history entry by this token, and no new event for the entity.
    const after = await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId });
    expect(after.item.status).toBe('rejected');
    const rejected = after.history.filter((h) => h.action === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBe(reason);
    await expect(entry).toContainText(rejected[0]!.actor_token_id);
    // A rejection commits with its history entry and emits nothing, so the events are final now.
    const eventsAfter = (await server.rpc<{ events: StoredEvent[] }>('event.list', { filter: { entity_id: entityId }, limit: 500 })).events;
    expect(eventsAfter.map((e) => e.event_id).sort()).toEqual([...eventsBefore].sort());
    expect(eventsAfter.filter((e) => e.event_name === 'refund.approved')).toHaveLength(0);

    // The queue, filtered to rejected items, lists it.
    await page.goto(`/mailbox/${mailboxId}?status=rejected`);
    await expect(page.getByTestId('mailbox-row').filter({ has: page.locator(`a[href^="/mailbox/${mailboxId}"]`) })).toHaveAttribute('data-status', 'rejected');
  });

  test('approve shows what will be emitted, and the downstream event appears in the event browser', async ({ signedIn: page, server }) => {
    const { mailboxId, entityId } = await freshRefundItem(server, 'approve');
    const sheet = await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId });
    const revision = sheet.decision_sheet.entity_context.entity!.entity.revision;
    const review = await openItem(page, mailboxId);
    await expect(review.getByTestId('downstream-preview')).toContainText('refund.approved');
    await expect(review.getByTestId('entity-revision')).toHaveText(String(revision));

    let sentParams: Record<string, unknown> | undefined;
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"mailbox.approve"')) sentParams = JSON.parse(body).params;
    });
    await page.keyboard.press('a');
    const dialog = page.getByTestId('decision-dialog');
    await expect(dialog).toBeVisible();
    const consequence = dialog.getByTestId('approve-consequence');
    await expect(consequence).toContainText('Approving will emit refund.approved to pay-refund, mark-refund-approved');
    await expect(consequence).toContainText(`at revision ${revision}`);
    await dialog.getByTestId('confirm-decision').click();
    await expect(dialog).toBeHidden();
    expect(sentParams).toMatchObject({ mailbox_id: mailboxId, expected_entity_revision: revision });
    expect(typeof sentParams!.idempotency_key).toBe('string');

    const outcome = page.getByTestId('decision-outcome');
    await expect(outcome).toContainText('Approved. Emitted refund.approved');
    await expect(review).toHaveAttribute('data-status', 'approved');
    await outcome.getByTestId('downstream-event-link').click();

    await expect(page).toHaveURL(/\/events\?/);
    const eventId = new URL(page.url()).searchParams.get('event_id')!;
    const row = page.getByTestId('event-row').first();
    await expect(row).toContainText('refund.approved');
    await expect(page.getByRole('complementary', { name: 'Event details' })).toContainText(eventId);
    const { events } = await server.rpc<{ events: (StoredEvent & { entity_id?: string })[] }>('event.list', { filter: { event_id: eventId } });
    expect(events[0]).toMatchObject({ event_name: 'refund.approved', entity_id: entityId });
  });

  test('double-clicking reject decides once, with one idempotency key', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'double');
    const keys: string[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"mailbox.reject"')) keys.push(JSON.parse(body).params.idempotency_key);
    });
    const review = await openItem(page, mailboxId);
    await page.keyboard.press('r');
    const dialog = page.getByTestId('decision-dialog');
    await dialog.getByLabel('Reason (required)').fill('Double click test');
    await dialog.getByTestId('confirm-decision').dblclick();
    await expect(page.getByTestId('decision-outcome')).toContainText('Rejected');
    await expect(review).toHaveAttribute('data-status', 'rejected');
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(new Set(keys).size).toBe(1);
    const after = await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId });
    expect(after.history.filter((h) => h.action === 'rejected')).toHaveLength(1);
    await expect(review.getByTestId('history-entry')).toHaveCount(2);
  });

  test('an item decided elsewhere while the dialog is open shows MAILBOX_NOT_PENDING plainly', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'race');
    const review = await openItem(page, mailboxId);
    await review.getByTestId('reject-button').click();
    const dialog = page.getByTestId('decision-dialog');
    await dialog.getByLabel('Reason (required)').fill('Too late');
    await server.rpc('mailbox.reject', { mailbox_id: mailboxId, reason: 'decided by another reviewer' });
    await dialog.getByTestId('confirm-decision').click();
    await expect(dialog.getByTestId('not-pending')).toContainText('This item was already decided (it is rejected)');
    await expect(dialog.getByTestId('confirm-decision')).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Reload the item' }).click();
    await expect(dialog).toBeHidden();
    await expect(review.getByTestId('decided')).toContainText('decided by another reviewer');
  });

  test('approving after the entity moved shows STALE_DECISION_SHEET as "review again", with a reload', async ({ signedIn: page, server }) => {
    const { mailboxId, ticketId, entityId } = await freshRefundItem(server, 'stale');
    const before = (await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId })).decision_sheet.entity_context.entity!.entity.revision;
    const review = await openItem(page, mailboxId);
    await review.getByTestId('approve-button').click();
    const dialog = page.getByTestId('decision-dialog');
    await expect(dialog.getByTestId('approve-consequence')).toContainText(`at revision ${before}`);
    // The entity moves on while the reviewer looks at the sheet.
    await server.rpc('event.publish', {
      event_name: 'refund.requested',
      entity_id: entityId,
      payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount: 43, currency: 'EUR', reason: 'amended' },
    });
    await eventually('the entity revision to move', async () => {
      const r = await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId });
      return r.decision_sheet.entity_context.entity!.entity.revision > before;
    });
    await dialog.getByTestId('confirm-decision').click();
    await expect(dialog.getByTestId('stale-sheet')).toContainText('The entity changed since you opened this; review again');
    await dialog.getByRole('button', { name: 'Reload and review again' }).click();
    await expect(dialog).toBeHidden();
    await expect(review).toHaveAttribute('data-status', 'pending');
    await expect(review.getByTestId('entity-revision')).not.toHaveText(String(before));
    expect((await server.rpc<MailboxReview>('mailbox.get', { mailbox_id: mailboxId })).item.status).toBe('pending');
  });

  test('filters live in the URL, and j/k move through the queue', async ({ signedIn: page, server }) => {
    await freshRefundItem(server, 'keys');
    await page.goto('/mailbox?status=pending&type=refund_approval');
    await expect(page.getByLabel('Status')).toHaveValue('pending');
    await expect(page.getByLabel('Type')).toHaveValue('refund_approval');
    const rows = page.getByTestId('mailbox-row');
    await expect(rows.first()).toBeVisible();
    for (const status of await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))) expect(status).toBe('pending');
    expect(await rows.count()).toBeGreaterThanOrEqual(2);
    // Each key press selects the neighbouring row: its link is marked current and its item opens.
    const current = (i: number) => rows.nth(i).locator('a');
    await page.keyboard.press('j');
    await expect(current(0)).toHaveAttribute('aria-current', 'true');
    await page.keyboard.press('j');
    await expect(current(1)).toHaveAttribute('aria-current', 'true');
    const second = await current(1).getAttribute('href');
    await expect(page).toHaveURL((u) => `${u.pathname}${u.search}` === second);
    await page.keyboard.press('k');
    await expect(current(0)).toHaveAttribute('aria-current', 'true');
    await expect(page).toHaveURL(/status=pending&type=refund_approval/);
    await expect(page.getByTestId('mailbox-review')).toBeVisible();
  });

  test('axe: queue, review, dialogs and a decided item have no serious or critical violations; screenshots', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'axe');
    await page.goto('/mailbox');
    await expect(page.getByTestId('mailbox-row').first()).toBeVisible();
    await expect(page.getByTestId('heartbeat')).toContainText('Healthy');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '20-mailbox-queue');

    const review = await openItem(page, mailboxId);
    await expect(review.getByTestId('entity-context')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '21-mailbox-review');

    await review.getByTestId('approve-button').click();
    await expect(page.getByTestId('decision-dialog')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '22-mailbox-approve-dialog');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('decision-dialog')).toBeHidden();

    await review.getByTestId('reject-button').click();
    const dialog = page.getByTestId('decision-dialog');
    await dialog.getByTestId('confirm-decision').click();
    await expect(dialog.getByRole('alert')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '23-mailbox-reject-dialog-empty-reason');
    await dialog.getByLabel('Reason (required)').fill('Axe scan reject');
    await dialog.getByTestId('confirm-decision').click();
    await expect(review).toHaveAttribute('data-status', 'rejected');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '24-mailbox-decided');

    await page.goto('/mailbox?type=no_such_type');
    await expect(page.getByText('No items match these filters')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
