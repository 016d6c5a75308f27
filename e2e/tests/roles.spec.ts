/**
 * The console knows who you are: people of each role, created over the API by the admin token,
 * sign in by pasting their token and see their name and role, and only the actions their role
 * can take. A call refused because the role changed meanwhile explains itself.
 */
import { expect, test } from '../fixtures';
import { freshRefundItem } from '../mailbox-items';
import { MailboxReview } from '../pages/mailbox-page';
import { AdminPage, expectOffered, expectRefused, SessionHeader, signInByPasting } from '../pages/people-page';
import { RecoveryDialog } from '../pages/recovery-page';
import { RuntimePage } from '../pages/runtime-page';
import { EventsPage } from '../pages/events-page';
import { personWithToken, setRole } from '../people';

test('a viewer sees their name and role, and no reset, redrive, pause or approve', async ({ page, server }) => {
  const viewer = await personWithToken(server, 'viewer', 'viewer');
  const { mailboxId } = await freshRefundItem(server, 'viewer');
  await signInByPasting(page, viewer.secret, '/runtime');
  const header = new SessionHeader(page);
  await expect(header.name).toHaveText(viewer.name);
  await expect(header.role).toHaveText('viewer');
  await expect(header.navLink('Admin')).toHaveCount(0);
  await expect(header.navLink('Audit')).toBeVisible();

  const runtime = new RuntimePage(page);
  await expect(runtime.ingressState).toBeVisible();
  await expectRefused(runtime.openNukeButton, 'needs admin');
  await expectRefused(runtime.pauseButton.or(runtime.resumeButton), 'needs operator');

  const events = new EventsPage(page);
  await page.goto('/dead-letters');
  await expectRefused(events.openRecovery, 'needs operator');

  const review = await MailboxReview.open(page, mailboxId);
  await expectRefused(review.approveButton, 'needs reviewer');
  await expectRefused(review.rejectButton, 'needs reviewer');
  // The shortcut does not open the dialog either.
  await page.keyboard.press('a');
  await expect(review.dialog.root).toHaveCount(0);

  await page.goto('/admin');
  await expect(new AdminPage(page).needsAdmin).toBeVisible();
});

test('a reviewer lands on the mailbox and can reject, but not redrive', async ({ page, server }) => {
  const reviewer = await personWithToken(server, 'reviewer', 'reviewer');
  const { mailboxId } = await freshRefundItem(server, 'reviewer');
  await signInByPasting(page, reviewer.secret, '/');
  await expect(page).toHaveURL(/\/mailbox$/);
  await expect(new SessionHeader(page).role).toHaveText('reviewer');

  const review = await MailboxReview.open(page, mailboxId);
  await expectOffered(review.rejectButton);
  await review.rejectButton.click();
  await review.dialog.rejectWith('e2e: a reviewer rejects');
  await review.expectStatus('rejected');
  const decided = await server.rpc('mailbox.get', { mailbox_id: mailboxId });
  expect(decided.item.status).toBe('rejected');

  await page.goto('/events');
  await expectRefused(new EventsPage(page).openRecovery, 'needs operator');
});

test('an operator is offered redrive and pause but not reset', async ({ page, server }) => {
  const operator = await personWithToken(server, 'operator', 'operator');
  await signInByPasting(page, operator.secret, '/dead-letters');
  await expect(new SessionHeader(page).role).toHaveText('operator');
  await expectOffered(new EventsPage(page).openRecovery);
  await expect(new EventsPage(page).openRecovery).toContainText('Redrive');

  const runtime = new RuntimePage(page);
  await runtime.goto();
  await expectOffered(runtime.pauseButton.or(runtime.resumeButton));
  await expectRefused(runtime.openNukeButton, 'needs admin');
});

test('a call refused because the role changed meanwhile says what it needed, and the page follows the new role', async ({ page, server }) => {
  const person = await personWithToken(server, 'operator', 'demoted');
  await signInByPasting(page, person.secret, '/events');
  const events = new EventsPage(page);
  await expect(events.rows.first()).toBeVisible();
  await expectOffered(events.openRecovery);

  await setRole(server, person, 'viewer');
  await events.openRecovery.click();
  const dialog = new RecoveryDialog(page);
  await expect(dialog.alert).toContainText('This needs the operator role (scope events:redrive)');
  await expect(dialog.alert).toContainText('You are signed in as viewer');
  await page.keyboard.press('Escape');
  await expect(new SessionHeader(page).role).toHaveText('viewer');
  await expectRefused(events.openRecovery, 'needs operator');
});

test('an admin creates a token on the Admin screen and sees its secret exactly once', async ({ page, server }) => {
  const admin = await personWithToken(server, 'admin', 'admin');
  const holder = await personWithToken(server, 'reviewer', 'holder');
  await signInByPasting(page, admin.secret, '/');
  const header = new SessionHeader(page);
  await header.navLink('Admin').click();
  const adminPage = new AdminPage(page);
  await expect(adminPage.userRow(holder.userId)).toContainText(holder.name);

  const tokenName = `e2e-once-${Date.now().toString(36)}`;
  const secret = await adminPage.createTokenFor(`${holder.name} (reviewer)`, tokenName);
  expect(secret).toMatch(/^sbk_/);
  // The secret works: it is the holder's.
  const session = await fetch(`${server.url}/v1/auth/session`, { headers: { authorization: `Bearer ${secret}` } });
  expect(session.status).toBe(200);
  expect(((await session.json()) as { user: { id: string } }).user.id).toBe(holder.userId);

  await adminPage.stored.click();
  await expect(adminPage.dialog).toHaveCount(0);
  await expect(adminPage.tokens.filter({ hasText: tokenName })).toHaveCount(1);
  // Nowhere on the page any more, and not after opening the dialog again.
  expect(await page.content()).not.toContain(secret);
  await adminPage.createToken.click();
  await expect(adminPage.dialog).toBeVisible();
  await expect(adminPage.secret).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
});
