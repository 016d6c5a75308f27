import type { Request } from '@playwright/test';
import { expect, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';
import { MailboxQueue, MailboxReview } from '../pages/mailbox-page';
import { freshRefundItem } from '../mailbox-items';
import { EventsPage } from '../pages/events-page';
import { actorLabels, ConsoleShell } from '../pages/shell-page';

test.describe('mailbox', () => {
  test.describe.configure({ timeout: 90_000 });

  test('reject with a reason: history entry, no longer pending, no downstream event; an empty reason cannot be sent', async ({ signedIn: page, server }) => {
    const { mailboxId, entityId } = await freshRefundItem(server, 'reject');
    const eventsBefore = (await server.rpc('event.list', { filter: { entity_id: entityId }, limit: 500 })).events.map((e) => e.event_id);
    const rejectCalls: Request[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/rpc') && r.postData()?.includes('"mailbox.reject"')) rejectCalls.push(r);
    });

    const review = await MailboxReview.open(page, mailboxId);
    const { dialog } = review;
    await review.expectStatus('pending');
    await review.rejectButton.click();
    await expect(dialog.root).toBeVisible();
    await expect(dialog.rejectConsequence).toContainText('No downstream event will be emitted');

    // The type declares reason codes: none chosen, or Other with an empty or whitespace-only
    // reason, is refused in the console and never sent.
    await expect(dialog.reasonCodes.first()).toBeFocused();
    await dialog.confirm.click();
    await expect(dialog.alert).toContainText('Choose a reason code');
    await dialog.rejectWith('    ', 'other');
    await expect(dialog.alert).toContainText('cannot be empty');
    await expect(dialog.reason).toHaveAttribute('aria-invalid', 'true');
    expect(rejectCalls).toHaveLength(0);
    expect((await server.rpc('mailbox.get', { mailbox_id: mailboxId })).item.status).toBe('pending');

    // Number keys pick a code; its label is not pasted into the text, which stays the reviewer's.
    await dialog.reason.fill('');
    await dialog.reasonCode('other').focus();
    await page.keyboard.press('1');
    await expect(dialog.reasonCode('duplicate_request')).toHaveAttribute('aria-pressed', 'true');
    await expect(dialog.reasonCode('other')).toHaveAttribute('aria-pressed', 'false');
    await expect(dialog.reason).toHaveValue('');
    const reason = 'Same ticket as last week (e2e reject test)';
    await dialog.reason.fill(reason);
    await expect(dialog.root).toContainText(`${reason.length} / 2000 characters`);
    // Ctrl+Enter submits from the text field.
    await page.keyboard.press('Control+Enter');
    await expect(dialog.root).toBeHidden();

    await expect(review.outcome).toContainText('Rejected. No downstream event was emitted.');
    await review.expectStatus('rejected');
    await expect(review.decided).toContainText('Rejected');
    await expect(review.decided).toContainText(reason);
    await expect(review.decided).toContainText('cannot be decided again');
    await expect(review.rejectButton).toHaveCount(0);
    const entry = review.historyEntries('rejected');
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText(reason);

    // The server agrees: rejected, one history entry by this token, and no new event for the entity.
    const after = await server.rpc('mailbox.get', { mailbox_id: mailboxId });
    expect(after.item.status).toBe('rejected');
    const rejected = after.history.filter((h) => h.action === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ reason, reason_code: 'duplicate_request' });
    // The entry names the person; the acting token's id is on hover.
    await expect(actorLabels(entry)).toHaveAttribute('title', new RegExp(rejected[0]!.actor_token_id));
    // A rejection commits with its history entry and emits nothing, so the events are final now.
    const eventsAfter = (await server.rpc('event.list', { filter: { entity_id: entityId }, limit: 500 })).events;
    expect(eventsAfter.map((e) => e.event_id).sort()).toEqual([...eventsBefore].sort());
    expect(eventsAfter.filter((e) => e.event_name === 'refund.approved')).toHaveLength(0);

    // The queue, filtered to rejected items, lists it.
    const queue = new MailboxQueue(page);
    await queue.goto(`/${mailboxId}?status=rejected`);
    await expect(queue.rowFor(mailboxId)).toHaveAttribute('data-status', 'rejected');
  });

  test('approve shows what will be emitted, and the downstream event appears in the event browser', async ({ signedIn: page, server }) => {
    const { mailboxId, entityId } = await freshRefundItem(server, 'approve');
    const sheet = await server.rpc('mailbox.get', { mailbox_id: mailboxId });
    const revision = sheet.decision_sheet.entity_context.entity!.entity.revision;
    const review = await MailboxReview.open(page, mailboxId);
    const { dialog } = review;
    await expect(review.downstreamPreview).toContainText('refund.approved');
    await expect(review.entityRevision).toHaveText(String(revision));

    let sentParams: Record<string, unknown> | undefined;
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"mailbox.approve"')) sentParams = JSON.parse(body).params;
    });
    await page.keyboard.press('a');
    await expect(dialog.root).toBeVisible();
    await expect(dialog.approveConsequence).toContainText('Approving will emit refund.approved to pay-refund, mark-refund-approved');
    await expect(dialog.approveConsequence).toContainText(`at revision ${revision}`);
    // The payload it will emit is shown, and focus starts on Approve: Enter approves.
    const item = await server.rpc('mailbox.get', { mailbox_id: mailboxId });
    await expect(dialog.payload).toContainText(String(item.item.payload.ticket_id));
    await expect(dialog.confirm).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(dialog.root).toBeHidden();
    expect(sentParams).toMatchObject({ mailbox_id: mailboxId, expected_entity_revision: revision });
    expect(typeof sentParams!.idempotency_key).toBe('string');

    await expect(review.outcome).toContainText('Approved. Emitted refund.approved');
    await review.expectStatus('approved');
    // Decided: no "If approved"; what it emitted; the entity as the approver saw it, and now.
    const decided = review.decidedSheet;
    await expect(review.ifApprovedHeading).toHaveCount(0);
    await expect(decided.emitted).toContainText('refund.approved');
    await expect(decided.revisionAtDecision).toHaveText(String(revision));
    await review.downstreamEventLink.click();

    await expect(page).toHaveURL(/\/events\?/);
    const eventId = new URL(page.url()).searchParams.get('event_id')!;
    const browser = new EventsPage(page);
    const row = browser.rows.first();
    await expect(row).toContainText('refund.approved');
    await expect(browser.detail).toContainText(eventId);
    const { events } = await server.rpc('event.list', { filter: { event_id: eventId } });
    expect(events[0]).toMatchObject({ event_name: 'refund.approved', entity_id: entityId });

    // The emitted event moves the entity on; a reader who opens the item later sees what the
    // approver saw ("at decision") and what changed since ("now").
    await expect
      .poll(async () => (await server.rpc('mailbox.get', { mailbox_id: mailboxId })).decision_sheet.entity_context.entity!.entity.revision, { message: 'the entity to move on', timeout: 45_000 })
      .toBeGreaterThan(revision);
    await page.goto(`/mailbox/${mailboxId}`);
    const later = review.decidedSheet;
    await expect(later.entityChanged).toContainText('changed since');
    await expect(later.revisionAtDecision).toHaveText(String(revision));
    await expect(later.now).toContainText(`revision ${revision} →`);
    await expect(later.emitted).toContainText(eventId);
    await shotAtBothWidths(page, '23-mailbox-decided-at-decision');
  });

  test('double-clicking reject decides once, with one idempotency key', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'double');
    const keys: string[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"mailbox.reject"')) keys.push(JSON.parse(body).params.idempotency_key);
    });
    const review = await MailboxReview.open(page, mailboxId);
    await page.keyboard.press('r');
    await expect(review.dialog.reasonCodes.first()).toBeFocused();
    await page.keyboard.press('2');
    await review.dialog.reason.fill('Double click test');
    await review.dialog.confirm.dblclick();
    await expect(review.outcome).toContainText('Rejected');
    await review.expectStatus('rejected');
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(new Set(keys).size).toBe(1);
    const after = await server.rpc('mailbox.get', { mailbox_id: mailboxId });
    expect(after.history.filter((h) => h.action === 'rejected')).toHaveLength(1);
    await expect(review.history).toHaveCount(2);
  });

  test('an item decided elsewhere while the dialog is open shows MAILBOX_NOT_PENDING plainly', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'race');
    const review = await MailboxReview.open(page, mailboxId);
    const { dialog } = review;
    await review.rejectButton.click();
    await dialog.reasonCode('other').click();
    await dialog.reason.fill('Too late');
    await server.rpc('mailbox.reject', { mailbox_id: mailboxId, reason: 'decided by another reviewer', reason_code: 'other' });
    await dialog.confirm.click();
    await expect(dialog.notPending).toContainText('This item was already decided (it is rejected)');
    await expect(dialog.confirm).toHaveCount(0);
    await dialog.button('Reload the item').click();
    await expect(dialog.root).toBeHidden();
    await expect(review.decided).toContainText('decided by another reviewer');
  });

  test('approving after the entity moved shows STALE_DECISION_SHEET as "review again", with a reload', async ({ signedIn: page, server }) => {
    const { mailboxId, ticketId, entityId } = await freshRefundItem(server, 'stale');
    const before = (await server.rpc('mailbox.get', { mailbox_id: mailboxId })).decision_sheet.entity_context.entity!.entity.revision;
    const review = await MailboxReview.open(page, mailboxId);
    const { dialog } = review;
    await review.approveButton.click();
    await expect(dialog.approveConsequence).toContainText(`at revision ${before}`);
    // The entity moves on while the reviewer looks at the sheet.
    await server.rpc('event.publish', {
      event_name: 'refund.requested',
      entity_id: entityId,
      payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount: 43, currency: 'EUR', reason: 'amended' },
    });
    await expect
      .poll(async () => (await server.rpc('mailbox.get', { mailbox_id: mailboxId })).decision_sheet.entity_context.entity!.entity.revision, { message: 'the entity revision to move', timeout: 45_000 })
      .toBeGreaterThan(before);
    await dialog.confirm.click();
    await expect(dialog.staleSheet).toContainText('The entity changed since you opened this; review again');
    await dialog.button('Reload and review again').click();
    await expect(dialog.root).toBeHidden();
    await review.expectStatus('pending');
    await expect(review.entityRevision).not.toHaveText(String(before));
    expect((await server.rpc('mailbox.get', { mailbox_id: mailboxId })).item.status).toBe('pending');
  });

  test('filters live in the URL, and j/k move through the queue', async ({ signedIn: page, server }) => {
    // A queue of this test's own two items: items other tests add meanwhile would shift the rows
    // between key presses.
    const tag = `keys${Date.now().toString(36)}`;
    await Promise.all([freshRefundItem(server, tag), freshRefundItem(server, tag)]);
    const queue = new MailboxQueue(page);
    await queue.goto(`?status=pending&type=refund_approval&payload=${encodeURIComponent(`payload.ticket_id ^= E2E-${tag}-`)}`);
    await expect(queue.statusFilter).toHaveValue('pending');
    await expect(queue.typeFilter).toHaveValue('refund_approval');
    await expect(queue.rows).toHaveCount(2);
    for (const status of await queue.statuses()) expect(status).toBe('pending');
    // Each key press selects the neighbouring row: its link is marked current and its item opens.
    const current = (i: number) => queue.rowLink(i);
    await page.keyboard.press('j');
    await expect(current(0)).toHaveAttribute('aria-current', 'true');
    await page.keyboard.press('j');
    await expect(current(1)).toHaveAttribute('aria-current', 'true');
    const second = await current(1).getAttribute('href');
    await expect(page).toHaveURL((u) => `${u.pathname}${u.search}` === second);
    await page.keyboard.press('k');
    await expect(current(0)).toHaveAttribute('aria-current', 'true');
    await expect(page).toHaveURL(/status=pending&type=refund_approval/);
    await expect(new MailboxReview(page).root).toBeVisible();
  });

  test('a payload condition finds the item of one ticket, and stays in the URL', async ({ signedIn: page, server }) => {
    const { mailboxId, ticketId } = await freshRefundItem(server, 'payload');
    const queue = new MailboxQueue(page);
    await queue.goto();
    await queue.payloadFilter.fill(`payload.ticket_id = ${ticketId}`);
    await expect(page).toHaveURL(/payload=payload\.ticket_id/);
    await expect(queue.rows).toHaveCount(1);
    await expect(queue.rowFor(mailboxId)).toHaveCount(1);
    await page.reload();
    await expect(queue.payloadFilter).toHaveValue(`payload.ticket_id = ${ticketId}`);
    await expect(queue.rows).toHaveCount(1);
  });

  test('axe: queue, review, dialogs and a decided item have no serious or critical violations; screenshots', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'axe');
    const queue = new MailboxQueue(page);
    await queue.goto();
    await expect(queue.rows.first()).toBeVisible();
    await expect(new ConsoleShell(page).heartbeat).toContainText('Healthy');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '20-mailbox-queue');

    const review = await MailboxReview.open(page, mailboxId);
    const { dialog } = review;
    await expect(review.entityContext).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '21-mailbox-review');

    await review.approveButton.click();
    await expect(dialog.root).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '22-mailbox-approve-dialog');
    await page.keyboard.press('Escape');
    await expect(dialog.root).toBeHidden();

    await review.rejectButton.click();
    await dialog.confirm.click();
    await expect(dialog.alert).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '23-mailbox-reject-dialog-empty-reason');
    await dialog.rejectWith('Axe scan reject');
    await review.expectStatus('rejected');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '24-mailbox-decided');

    await queue.goto('?type=no_such_type');
    await expect(queue.noMatch()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
