import type { Browser, Page } from '@playwright/test';
import { seriousViolations } from '../console-checks';
import { expect, signInContext, test, type SharedServer } from '../fixtures';
import { pendingItemFor } from '../mailbox-items';
import { MailboxReview } from '../pages/mailbox-page';

/**
 * The two-person rule in the console (issue 37): the demo's fraud reviews need two approvals from
 * different people. Two reviewers with admin-made tokens approve one in turn; the person who
 * published it, and the first reviewer after approving, are told why they cannot approve.
 */
test.describe('two-person approval', () => {
  test.describe.configure({ timeout: 90_000 });

  async function reviewerToken(server: SharedServer, name: string): Promise<string> {
    const { user } = await server.rpc('user.create', { display_name: name, role: 'reviewer' });
    const { secret } = await server.rpc('token.create', { user_id: user.id, name: `${name} (e2e)` });
    return secret!;
  }

  async function pageAs(browser: Browser, server: SharedServer, token: string): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    await signInContext(page, { url: server.url, token });
    return page;
  }

  test('two reviewers approve a fraud review one after the other; the event-less item closes on the second', async ({ browser, server }) => {
    const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const rita = `Rita ${tag}`;
    const ravi = `Ravi ${tag}`;
    const ritaToken = await reviewerToken(server, rita);
    const raviToken = await reviewerToken(server, ravi);
    const ticketId = `E2E-2P-${tag}`;
    // Published with the server's admin token: the admin started this run.
    await server.rpc('event.publish', { event_name: 'account.flagged', payload: { ticket_id: ticketId, risk_score: 0.97, reason: 'e2e two-person' } });
    const item = await pendingItemFor(server, 'fraud_review', ticketId);

    const adminPage = await pageAs(browser, server, server.token);
    const adminView = await MailboxReview.open(adminPage, item.mailbox_id);
    await expect(new MailboxReview(adminPage).approvalProgress()).toHaveText('0 of 2 approvals');
    await expect(adminView.approveButton).toBeDisabled();
    await expect(new MailboxReview(adminPage).approveUnavailable()).toHaveText('You started this run, so someone else has to approve its item.');
    await expect(adminView.rejectButton).toBeEnabled();

    const ritaPage = await pageAs(browser, server, ritaToken);
    const ritaView = await MailboxReview.open(ritaPage, item.mailbox_id);
    await expect(ritaView.approveButton).toBeEnabled();
    await ritaView.approveButton.click();
    await ritaView.dialog.confirm.click();
    await expect(ritaView.outcome).toContainText('Approval recorded. 1 of 2 approvals: the item stays pending until someone else approves it');
    await ritaView.expectStatus('pending');
    await expect(new MailboxReview(ritaPage).approvalProgress()).toHaveText(`1 of 2 approvals · approved by ${rita}`);
    await expect(ritaView.approveButton).toBeDisabled();
    await expect(new MailboxReview(ritaPage).approveUnavailable()).toHaveText('You already approved this item; it needs an approval from someone else.');
    await expect(ritaView.approveButton).toHaveAttribute('aria-describedby', 'approve-unavailable');
    expect(await seriousViolations(ritaPage)).toEqual([]);

    const raviPage = await pageAs(browser, server, raviToken);
    const raviView = await MailboxReview.open(raviPage, item.mailbox_id);
    await expect(new MailboxReview(raviPage).approvalProgress()).toHaveText(`1 of 2 approvals · approved by ${rita}`);
    await raviView.approveButton.click();
    await raviView.dialog.confirm.click();
    await raviView.expectStatus('approved');
    await expect(raviView.outcome).toContainText('Approved.');
    await expect(new MailboxReview(raviPage).approvalProgress()).toHaveText(`2 of 2 approvals · approved by ${rita}, ${ravi}`);

    const got = await server.rpc('mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.item.status).toBe('approved');
    expect(got.approvals?.map((a) => a.user_name)).toEqual([rita, ravi]);
  });
});
