import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';
import { EventsPage } from '../pages/events-page';
import { MailboxReview } from '../pages/mailbox-page';
import { RecoveryDialog } from '../pages/recovery-page';
import { RuntimePage } from '../pages/runtime-page';
import { ServerProcess } from '../server-process';
import { freshRefundItem } from '../mailbox-items';

/**
 * The decision guards of issue 36: approving past a failing gate says which gates fail, first,
 * and needs an override note, which the history then shows.
 */
test.describe('decision guards', () => {
  test.describe.configure({ timeout: 90_000 });

  test('approve a gate-failing item with an override note; the history shows the note and the gate', async ({ signedIn: page, server }) => {
    const { mailboxId } = await freshRefundItem(server, 'gate', 607.54);
    const approveCalls: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"mailbox.approve"')) approveCalls.push(JSON.parse(body).params);
    });
    const review = await MailboxReview.open(page, mailboxId);
    const { dialog } = review;
    await review.approveButton.click();
    await expect(dialog.failingGates).toContainText('1 of 3 gates fail: within_refund_limit, 607.54 > 500');
    await expect(dialog.overrideNote).toBeFocused();
    await expect(dialog.confirm).toHaveText('Approve anyway and emit refund.approved');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '25-mailbox-approve-failing-gate');

    // Without a note the console refuses and sends nothing.
    await dialog.confirm.click();
    await expect(dialog.alert).toContainText('Write an override note');
    expect(approveCalls).toHaveLength(0);

    const note = 'Goodwill: long-standing customer, approved by the team lead';
    await dialog.approveAnywayWith(note);
    await expect(dialog.root).toBeHidden();
    expect(approveCalls).toHaveLength(1);
    expect(approveCalls[0]).toMatchObject({ mailbox_id: mailboxId, override_note: note });
    await review.expectStatus('approved');
    await expect(review.overrideNotes).toContainText('Approved past failing gates: within_refund_limit, 607.54 > 500');
    await expect(review.overrideNotes).toContainText(note);
    await shotAtBothWidths(page, '26-mailbox-approved-past-gate', { scrollTo: review.historyEntries('approved') });

    const entry = (await server.rpc('mailbox.get', { mailbox_id: mailboxId })).history.find((h) => h.action === 'approved');
    expect(entry).toMatchObject({ override_note: note, overridden_gates: [{ gate: 'within_refund_limit', summary: '607.54 > 500' }] });
  });
});

test.describe('replay guards', () => {
  test.describe.configure({ timeout: 90_000 });

  test('replay leaves the side-effect subscriber unticked, with a warning; the new event links both ways', async ({ signedIn: page, server }) => {
    // A refund.approved of its own: approving the item emits it to pay-refund (side effects) and mark-refund-approved.
    const { mailboxId } = await freshRefundItem(server, 'replay');
    const approved = await server.rpc('mailbox.approve', { mailbox_id: mailboxId });
    const original = approved.downstream_event_id!;
    const replayCalls: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"event.replay"')) replayCalls.push(JSON.parse(body).params);
    });

    const events = new EventsPage(page);
    await events.gotoEvent(original);
    await events.replayButton().click();
    const dialog = new RecoveryDialog(page);
    await expect(dialog.subscriber('pay-refund')).not.toBeChecked();
    await expect(dialog.subscriber('mark-refund-approved')).toBeChecked();
    await expect(dialog.sideEffectWarning).toContainText('pay-refund acts outside the runtime');
    await expect(dialog.sideEffectWarning).toContainText('Left unticked');
    await expect(dialog.toSend).toHaveText('1');
    await expect(dialog.plan).toContainText('mark-refund-approved');
    await expect(dialog.plan).not.toContainText('pay-refund');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '27-replay-side-effects-unticked');

    await dialog.apply.click();
    await expect(dialog.published).toHaveCount(1);
    const applied = replayCalls.find((p) => p.dry_run === false)!;
    expect(applied).toMatchObject({ event_ids: [original], subscriber_ids: ['mark-refund-approved'] });
    const replayId = (await dialog.published.first().textContent())!.trim();
    await shotAtBothWidths(page, '28-replay-applied-links');

    // The new event says what it replays and went to mark-refund-approved only.
    await dialog.published.first().click();
    await expect(events.replayOf()).toHaveText(original);
    const { events: [replayed] } = await server.rpc('event.list', { filter: { event_id: replayId } });
    expect(replayed!.deliveries.map((d) => d.subscriber_id)).toEqual(['mark-refund-approved']);

    // The original lists it under "Replayed as".
    await events.gotoEvent(original);
    await expect(events.replayedAs()).toHaveText([replayId]);
  });
});

test.describe('reset under steady demo traffic', () => {
  test.describe.configure({ timeout: 150_000 });
  let own: ServerProcess;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    // Steady demo traffic, fast: a publish every half second or so.
    own = await ServerProcess.start({ env: { SWITCHBOARD_DEMO: 'steady', SWITCHBOARD_DEMO_RATE_PER_MIN: '120' } });
    await expect.poll(async () => (await own.rpc('event.list', { limit: 50 })).events.length, { message: 'demo traffic', timeout: 90_000 }).toBeGreaterThanOrEqual(10);
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test("'Pause ingress, then preview' gives a plan that survives the traffic; the audit names the actor and the whole reason", async ({ page }) => {
    const nukeCalls: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"runtime.nuke"')) nukeCalls.push(JSON.parse(body).params);
    });
    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    const status = await own.rpc('runtime.status');
    const dialog = await runtime.openNuke();
    await dialog.pauseThenPreview.click();
    await expect(dialog.pausedBasis).toContainText('Ingress is paused');
    await expect(dialog.pauseThenPreview).toHaveCount(0);
    const hash = await dialog.planHash.innerText();
    expect((await own.rpc('runtime.status')).ingress).toBe('paused');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '47-nuke-paused-preview');

    // The demo keeps publishing (queued now) while the operator confirms.
    const queued = (await own.rpc('runtime.status')).queue_depth;
    await expect.poll(async () => (await own.rpc('runtime.status')).queue_depth, { message: 'more queued publishes', timeout: 30_000 }).toBeGreaterThan(queued);
    const reason = 'e2e: reset under steady traffic, paused first so the plan holds while the demo keeps publishing';
    await dialog.confirmAndApply(status.name, reason);
    await expect(dialog.outcome).toBeVisible({ timeout: 30_000 });
    await expect(dialog.stale).toHaveCount(0);
    const applied = nukeCalls.find((p) => p.dry_run === false)!;
    expect(applied).toMatchObject({ expected_plan_hash: hash, reason });
    expect(nukeCalls.filter((p) => p.dry_run === false)).toHaveLength(1);

    const { resets } = await own.rpc('runtime.resets', {});
    expect(resets[0]).toMatchObject({ status: 'completed', reason, plan_hash: hash, actor_token_name: expect.any(String) });
    // Nothing from before the reset is left; a complete reset opens ingress, and the demo's traffic flows again.
    const after = (await own.rpc('event.list', { limit: 500 })).events;
    for (const e of after) expect(e.created_at >= resets[0]!.started_at).toBe(true);
    expect((await own.rpc('runtime.status')).ingress).toBe('open');
    await shotAtBothWidths(page, '48-nuke-under-traffic-done');

    // The past resets list shows the count removed, the actor's name and the whole reason.
    await page.keyboard.press('Escape');
    const past = runtime.pastResets.first();
    await expect(past).toContainText(reason);
    await expect(past).toContainText(resets[0]!.actor_token_name!);
    await expect(past).toContainText('events');
  });
});
