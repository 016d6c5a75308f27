/**
 * The Audit screen over the real audit trail: a reviewer's reject and an operator's replay show
 * with their names, an actor's name filters to their other actions, a target id opens its record,
 * and a refused call is listed as FORBIDDEN. Needs the audit.list handler (the audit branch).
 */
import { expect, test } from '../fixtures';
import { freshRefundItem } from '../mailbox-items';
import { AuditPage } from '../pages/audit-page';
import { MailboxReview } from '../pages/mailbox-page';
import { signInByPasting } from '../pages/people-page';
import { personWithToken } from '../people';
import { rpcClient } from '../rpc-client';

test('the Audit screen shows who rejected and who replayed, filters by actor, and opens a target', async ({ page, server }) => {
  const reviewer = await personWithToken(server, 'reviewer', 'audit-reviewer');
  const operator = await personWithToken(server, 'operator', 'audit-operator');
  const viewer = await personWithToken(server, 'viewer', 'audit-viewer');
  const { mailboxId } = await freshRefundItem(server, 'audit');
  await rpcClient(server.url, reviewer.secret).rpc('mailbox.reject', { mailbox_id: mailboxId, reason_code: 'other', reason: 'e2e: audit screen' });
  const asOperator = rpcClient(server.url, operator.secret);
  const published = await server.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-audit' } });
  const estimate = await asOperator.rpc('event.replay', { dry_run: true, event_ids: [published.event_id!] });
  await asOperator.rpc('event.replay', { dry_run: false, event_ids: [published.event_id!], expected_plan_hash: estimate.plan.plan_hash });
  await expect(rpcClient(server.url, viewer.secret).rpc('runtime.pause', {})).rejects.toThrow(/FORBIDDEN/);

  // Other tests write to the shared server's trail meanwhile (a burst of alert tests once filled
  // the first page), so each row is looked for where only its own kind can be: its target, or its
  // actor.
  await signInByPasting(page, viewer.secret, `/audit?target=${mailboxId}`);
  const audit = new AuditPage(page);
  const rows = audit.rows;
  const rejectRow = audit.rowsOf('mailbox.reject', reviewer.name);
  const replayRow = audit.rowsOf('event.replay', operator.name);
  // Retried: the rows of the view before stay on screen for a render after the URL changes.
  const expectOnlyRowsOf = (name: string) =>
    expect(async () => {
      expect(await rows.count(), 'rows shown').toBeGreaterThan(0);
      expect(await rows.filter({ hasNotText: name }).count(), `rows of others than ${name}`).toBe(0);
    }).toPass({ timeout: 15_000 });
  await expect(rejectRow.first()).toBeVisible();

  // The actor's other actions: from the reject row, only the reviewer's rows remain.
  await audit.actorLink(rejectRow.first()).click();
  await expect(page).toHaveURL(new RegExp(`actor=${reviewer.userId}`));
  await expectOnlyRowsOf(reviewer.name);
  await expect(rejectRow.first()).toBeVisible();
  await page.goto(`/audit?actor=${operator.userId}`);
  await expect(replayRow.first()).toBeVisible();
  await expectOnlyRowsOf(operator.name);
  await page.goto(`/audit?actor=${viewer.userId}`);
  await expect(audit.rowsOf('runtime.pause', viewer.name).first()).toContainText('FORBIDDEN');

  // A target id opens its record, as "go to id" does.
  await page.goto(`/audit?target=${mailboxId}`);
  await audit.targetLink(rejectRow.first(), mailboxId).click();
  await expect(page).toHaveURL(new RegExp(`/mailbox/${mailboxId}`));
  await expect(new MailboxReview(page).root).toBeVisible();
});
