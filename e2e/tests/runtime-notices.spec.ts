/**
 * What every open console notices: a reset made elsewhere (through the API while a tab shows the
 * mailbox) within 2 s, with its lists emptied; and paused ingress, with the queue depth, in the
 * header of every screen, and the queued publishes on the Runtime page.
 */
import { MailboxQueue } from '../pages/mailbox-page';
import { RuntimePage } from '../pages/runtime-page';
import { ConsoleShell } from '../pages/shell-page';
import { ServerProcess } from '../server-process';
import { ownDemoServer, settled } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

const SCREENS = ['/incidents', '/events', '/dead-letters', '/mailbox', '/agents', '/conversations', '/runtime'];

test.describe('runtime notices', () => {
  let own: ServerProcess;
  ownDemoServer((server) => {
    own = server;
  });

  test('paused ingress shows in the header of every screen with the queue depth; the Runtime page lists the queue', async ({ page }) => {
    await signInContext(page, own);
    await own.rpc('runtime.pause', { reason: 'maintenance window' });
    for (let n = 0; n < 3; n++) await own.rpc('event.publish', { event_name: 'ticket.created', payload: { ticket_id: `Q-${n}`, order_id: `ORD-Q-${n}`, subject: 'queued', customer: 'c', channel: 'email', body: 'b' } });
    for (const path of SCREENS) {
      await page.goto(`${own.url}${path}`);
      const notice = new ConsoleShell(page).ingressPausedNotice;
      await expect(notice, path).toContainText('Ingress is paused');
      await expect(notice, path).toContainText('3 publishes queued');
    }
    await page.goto(`${own.url}/runtime#ingress`);
    const queued = new RuntimePage(page).queuedPublishes;
    await expect(new RuntimePage(page).queuedPublishItems).toHaveCount(3);
    await expect(queued).toContainText('ticket.created');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '85-ingress-paused');
    await own.rpc('runtime.resume');
    await expect(new ConsoleShell(page).ingressPausedNotice).toHaveCount(0, { timeout: 10_000 });
  });

  test('a reset made through the API while a tab shows the mailbox: the tab says so and its lists empty within 2 s', async ({ page }) => {
    await settled(own);
    await signInContext(page, own);
    const mailbox = new MailboxQueue(page);
    await page.goto(`${own.url}/mailbox`);
    await expect(mailbox.rows.first()).toBeVisible();
    // The console's heartbeat socket is subscribed before the reset is made.
    await expect(new ConsoleShell(page).heartbeat).toContainText('Healthy');

    const preview = await own.rpc('runtime.nuke', { dry_run: true });
    await own.rpc('runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string, reason: 'fresh demo for the workshop' });
    const resetAt = Date.now();
    const notice = new ConsoleShell(page).resetNotice;
    await expect(notice).toContainText('The runtime was reset', { timeout: 2000 });
    await expect(notice).toContainText('fresh demo for the workshop');
    await expect(mailbox.rows).toHaveCount(0, { timeout: Math.max(100, 2000 - (Date.now() - resetAt)) });
    expect(Date.now() - resetAt).toBeLessThan(2000);
    await shotAtBothWidths(page, '86-reset-notice');

    // The Runtime page lists it among past resets.
    await new ConsoleShell(page).pastResetsLink.click();
    const past = new RuntimePage(page).pastResets;
    await expect(past).toHaveCount(1);
    await expect(past.first()).toContainText('fresh demo for the workshop');
    await expect(past.first()).toContainText('completed');
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test.describe('ingress notice timing', () => {
  let own: ServerProcess;
  test.beforeAll(async () => {
    // Heartbeats at the production interval (5 s): the notice must not wait for the next one.
    own = await ServerProcess.start({ heartbeatMs: 5000, env: { SWITCHBOARD_DEMO: 'off' } });
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('the paused notice follows a pause or resume at once from this console, and within 2 s from elsewhere', async ({ page }) => {
    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    const shell = new ConsoleShell(page);
    await runtime.goto(own.url);
    await expect(runtime.ingressState).toHaveText('open');
    await expect(shell.heartbeat).toContainText('Healthy');

    // From this console: the mutation's answer drives the notice.
    await runtime.pauseButton.click();
    await runtime.ingressDialog.confirm.click();
    await expect(shell.ingressPausedNotice).toBeVisible({ timeout: 1000 });
    await runtime.resumeButton.click();
    await runtime.ingressDialog.confirm.click();
    await expect(shell.ingressPausedNotice).toHaveCount(0, { timeout: 1000 });

    // From elsewhere (the API), on another screen: the change feed drives it.
    await page.goto(`${own.url}/events`);
    await expect(shell.heartbeat).toContainText('Healthy');
    await own.rpc('runtime.pause', { reason: 'elsewhere' });
    await expect(shell.ingressPausedNotice).toBeVisible({ timeout: 2000 });
    await own.rpc('runtime.resume');
    await expect(shell.ingressPausedNotice).toHaveCount(0, { timeout: 2000 });
  });
});
