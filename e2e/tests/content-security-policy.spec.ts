import { expect, test } from '../fixtures';
import { pendingItemFor } from '../mailbox-items';
import { MailboxReview } from '../pages/mailbox-page';
import { EventsPage } from '../pages/events-page';
import { RecoveryDialog } from '../pages/recovery-page';
import { RuntimePage } from '../pages/runtime-page';
import { ConsoleErrors, ConsoleShell } from '../pages/shell-page';

/**
 * The console runs under its Content-Security-Policy (no inline styles or scripts, sockets only to
 * its own origin) without a single violation or console error, on every screen and while each of
 * its dialogs opens (a dialog library that injects a <style> element logs one per open), and its
 * live heartbeat still connects.
 */
test('every screen and every dialog renders with no CSP violation or console error, and the heartbeat socket is allowed', async ({ signedIn: page, server }) => {
  test.setTimeout(120_000);
  const errors = await ConsoleErrors.attach(page);
  const shell = new ConsoleShell(page);

  const response = await page.goto(`${server.url}/incidents`);
  const csp = response!.headers()['content-security-policy']!;
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toMatch(/style-src 'self'(;|$)/);
  expect(csp).toMatch(/connect-src 'self'(;|$)/);

  for (const screen of ['/incidents', '/events', '/dead-letters', '/mailbox', '/agents', '/conversations', '/runtime']) {
    await page.goto(server.url + screen);
    await expect(shell.heading).toBeVisible();
    await expect(shell.heartbeat).toContainText('Healthy');
    expect(errors.take(), screen).toEqual([]);
  }

  // Every dialog, opened and closed again (nothing is applied).
  const runtime = new RuntimePage(page);
  await runtime.goto(server.url);
  await runtime.pauseButton.click();
  await expect(runtime.ingressDialog.root).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(runtime.ingressDialog.root).toBeHidden();
  expect(errors.take(), 'ingress dialog').toEqual([]);

  const nuke = await runtime.openNuke();
  await page.keyboard.press('Escape');
  await expect(nuke.root).toBeHidden();
  expect(errors.take(), 'reset dialog').toEqual([]);

  const events = new EventsPage(page);
  const recovery = new RecoveryDialog(page);
  for (const screen of ['/events', '/dead-letters']) {
    await page.goto(server.url + screen);
    await events.openRecovery.click();
    await expect(recovery.root).toBeVisible();
    await expect(recovery.plan).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(recovery.root).toBeHidden();
    expect(errors.take(), `recovery dialog on ${screen}`).toEqual([]);
  }

  const ticketId = `E2E-csp-${Date.now().toString(36)}`;
  await server.rpc('event.publish', {
    event_name: 'refund.requested',
    entity_id: `ticket-${ticketId}`,
    payload: { ticket_id: ticketId, order_id: 'ORD-E2E', amount: 12.5, currency: 'EUR', reason: 'e2e csp' },
  });
  const item = await pendingItemFor(server, 'refund_approval', ticketId);
  const review = await MailboxReview.open(page, item.mailbox_id);
  for (const open of [review.approveButton, review.rejectButton]) {
    await open.click();
    await expect(review.dialog.root).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(review.dialog.root).toBeHidden();
  }
  expect(errors.take(), 'decision dialogs').toEqual([]);
});
