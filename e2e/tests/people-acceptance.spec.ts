/**
 * Issue #37's acceptance walk, end to end in Chromium: people sign in through a real OpenID
 * provider's own login form. The reviewer sees no reset, redrive or pause and rejects an item;
 * the operator redrives the dead letters; an admin's Audit screen shows both actions under their
 * names; the admin creates a token and sees its secret once.
 */
import type { Page } from '@playwright/test';
import { freshRefundItem } from '../mailbox-items';
import { startOidcProvider, type TestOidcProvider } from '../oidc-provider';
import { expect, test } from '../fixtures';
import { AuditPage } from '../pages/audit-page';
import { MailboxReview } from '../pages/mailbox-page';
import { AdminPage, SessionHeader, expectOffered, expectRefused, signInByPasting } from '../pages/people-page';
import { RecoveryDialog } from '../pages/recovery-page';
import { RuntimePage } from '../pages/runtime-page';
import { IdentityProvider, SignInScreen } from '../pages/sign-in-page';
import { EventsPage } from '../pages/events-page';
import { freePort, type ServerProcess } from '../server-process';
import { startDemoServer } from '../runtime-helpers';

let provider: TestOidcProvider;
let server: ServerProcess;

test.beforeAll(async () => {
  test.setTimeout(150_000);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider({ switchboardUrls: [url] });
  // The demo runs to its end (in the background of a server that answers at once): pending refund
  // items and dead letters of pay-refund to act on.
  server = await startDemoServer({ port, env: provider.switchboardEnv(url) });
});

test.afterAll(async () => {
  await server?.dispose();
  await provider?.close();
});

test.beforeEach(async ({ context }) => {
  await context.route(/fonts\.googleapis\.com/, (route) => route.abort());
});

async function signInWithProvider(page: Page, login: string, path: string): Promise<void> {
  await page.goto(`${server.url}${path}`);
  await new SignInScreen(page).singleSignOn.click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await new IdentityProvider(page).signInAs(login);
  await expect(new SessionHeader(page).who).toBeVisible();
}

test('reviewer and operator sign in through the provider, act, and the audit names them', async ({ browser }) => {
  test.setTimeout(180_000);
  const { mailboxId } = await freshRefundItem(server, 'people');
  const deadLetters = await server.rpc('event.redrive', { dry_run: true, filter: { subscriber_id: 'pay-refund' } });
  expect(deadLetters.plan.to_send).toBeGreaterThan(0);

  // The reviewer: lands on the mailbox, cannot reset, redrive or pause, rejects the item.
  const asReviewer = await browser.newPage({ baseURL: server.url });
  await asReviewer.context().route(/fonts\.googleapis\.com/, (route) => route.abort());
  await signInWithProvider(asReviewer, 'rita', '/');
  const reviewerHeader = new SessionHeader(asReviewer);
  await expect(reviewerHeader.name).toHaveText('Rita Reviewer');
  await expect(reviewerHeader.role).toHaveText('reviewer');
  await expect(asReviewer).toHaveURL(/\/mailbox$/);
  const runtime = new RuntimePage(asReviewer);
  await runtime.goto();
  await expectRefused(runtime.openNukeButton, 'needs admin');
  await expectRefused(runtime.pauseButton.or(runtime.resumeButton), 'needs operator');
  await asReviewer.goto('/dead-letters?subscriber_id=pay-refund');
  await expectRefused(new EventsPage(asReviewer).openRecovery, 'needs operator');
  const review = await MailboxReview.open(asReviewer, mailboxId);
  await review.rejectButton.click();
  await review.dialog.rejectWith('e2e: rejected by the reviewer signed in with single sign-on');
  await review.expectStatus('rejected');
  await asReviewer.close();

  // The operator: redrives the pay-refund dead letters from Dead letters.
  const asOperator = await browser.newPage({ baseURL: server.url });
  await asOperator.context().route(/fonts\.googleapis\.com/, (route) => route.abort());
  await signInWithProvider(asOperator, 'oscar', '/dead-letters?subscriber_id=pay-refund&redriven=0');
  await expect(new SessionHeader(asOperator).name).toHaveText('Oscar Operator');
  const events = new EventsPage(asOperator);
  await expect(events.rows.first()).toBeVisible();
  await expectOffered(events.openRecovery);
  await events.openRecovery.click();
  const dialog = new RecoveryDialog(asOperator);
  await expect(dialog.toSend).toHaveText(String(deadLetters.plan.to_send));
  if (deadLetters.plan.to_send > 25) await dialog.confirm.fill(String(deadLetters.plan.to_send));
  await dialog.apply.click();
  await expect(dialog.progress).toBeVisible();
  await asOperator.close();

  // The admin (the server's own token): the Audit screen names both people beside their actions.
  const asAdmin = await browser.newPage({ baseURL: server.url });
  await signInByPasting(asAdmin, server.token, '/audit');
  const audit = new AuditPage(asAdmin);
  await expect(audit.rowsOf('mailbox.reject', 'Rita Reviewer').first()).toBeVisible();
  await expect(audit.rowsOf('event.redrive', 'Oscar Operator').first()).toBeVisible();
  await expect(audit.rowsOf('auth.sign_in', 'Rita Reviewer').first()).toBeVisible();

  // And creates a token for Rita: the secret shows once, then never again.
  const adminPage = new AdminPage(asAdmin);
  await adminPage.goto();
  const tokenName = `e2e-rita-${Date.now().toString(36)}`;
  const secret = await adminPage.createTokenFor('Rita Reviewer (reviewer)', tokenName);
  expect(secret).toMatch(/^sbk_/);
  await adminPage.stored.click();
  await expect(adminPage.tokens.filter({ hasText: tokenName })).toHaveCount(1);
  expect(await asAdmin.content()).not.toContain(secret);
  await asAdmin.close();
});
