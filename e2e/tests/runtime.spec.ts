import { EventsPage } from '../pages/events-page';
import { MailboxQueue } from '../pages/mailbox-page';
import { RuntimePage } from '../pages/runtime-page';
import { ConsoleShell } from '../pages/shell-page';
import { SignInScreen } from '../pages/sign-in-page';
import { ServerProcess } from '../server-process';
import { ownDemoServer, settled } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

/** Record counts in the stores a reset empties, read through the API. */
async function storeCounts(server: ServerProcess) {
  const [events, items, conversations] = await Promise.all([
    server.rpc('event.list', { limit: 500 }),
    server.rpc('mailbox.list', { limit: 500 }),
    server.rpc('conversation.list', { limit: 500 }),
  ]);
  return { events: events.events.length, mailbox: items.items.length, conversations: conversations.conversations.length };
}

test.describe('runtime page on its own server (the reset empties it)', () => {
  let own: ServerProcess;
  ownDemoServer((server) => {
    own = server;
  }, 120_000);

  test('pause and resume ingress, each confirmed, with the queue depth shown', async ({ page }) => {
    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    await expect(runtime.ingressState).toHaveText('open');
    await expect(runtime.bundleFingerprint).toHaveText(/^sha256:[0-9a-f]{64}$/);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '40-runtime');

    const keys: string[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body && /"runtime\.(pause|resume)"/.test(body)) keys.push(JSON.parse(body).params.idempotency_key);
    });
    await runtime.pauseButton.click();
    const dialog = runtime.ingressDialog;
    await expect(dialog.root).toContainText('queued durably');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.reason.fill('e2e: pause to check queueing');
    await dialog.confirm.click();
    await expect(dialog.root).toBeHidden();
    await expect(runtime.ingressState).toHaveText('paused');
    expect((await own.rpc('runtime.status')).ingress).toBe('paused');

    await own.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-paused' } });
    await runtime.refreshButton.click();
    await expect(runtime.queueDepth).toHaveText('1 queued');

    await runtime.resumeButton.click();
    await expect(dialog.root).toContainText('1 queued publish becomes eligible for dispatch, each exactly once');
    await dialog.confirm.click();
    await expect(new ConsoleShell(page).status('Ingress resumed')).toContainText('1 queued publish released');
    await expect(runtime.ingressState).toHaveText('open');
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
    await settled(own);
  });

  test('nuke: the dry run changes nothing; applying empties the stores and the token stays valid', async ({ page }) => {
    await settled(own);
    const before = await storeCounts(own);
    expect(before.events).toBeGreaterThan(0);
    expect(before.mailbox).toBeGreaterThan(0);
    const status = await own.rpc('runtime.status');

    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    const nukeCalls: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"runtime.nuke"')) nukeCalls.push(JSON.parse(body).params);
    });
    const dialog = await runtime.openNuke();
    // Step 1: every owner's preview, with counts.
    for (const owner of ['plan', 'quiescence', 'cleanup', 'containers'] as const) await expect(dialog.owner(owner)).toBeVisible();
    await expect(dialog.preview).toContainText(/Removes [\d,]+ records/);
    await expect(dialog.owner('cleanup')).toContainText('would keep');
    await expect(dialog.owner('containers')).toContainText('would stop');
    expect(nukeCalls).toEqual([{ dry_run: true }]);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '41-nuke-step1-preview');
    // Nothing changed.
    expect(await storeCounts(own)).toEqual(before);
    expect((await own.rpc('runtime.status')).ingress).toBe('open');
    const planHash = await dialog.planHash.innerText();

    // Step 2: only the runtime's name (or a fingerprint prefix) arms the next step.
    await dialog.continueButton.click();
    const input = dialog.confirmInput;
    const arm = dialog.arm;
    await expect(arm).toBeDisabled();
    await input.fill(status.name.slice(0, -1));
    await expect(arm).toBeDisabled();
    await input.fill('sha256:0000');
    await expect(arm).toBeDisabled();
    await input.fill(status.name);
    await expect(arm).toBeEnabled();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '42-nuke-step2-confirm');
    await arm.click();

    // Step 3: a reason is required, then apply with the dialog's key and the dry run's plan hash.
    const apply = dialog.apply;
    await apply.click();
    await expect(dialog.alert).toContainText('Say why');
    expect(nukeCalls).toHaveLength(1);
    await dialog.reason.fill('e2e: clean slate');
    await shotAtBothWidths(page, '43-nuke-step3-apply');
    await apply.click();
    const outcome = dialog.outcome;
    await expect(outcome).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
    await expect(outcome).toContainText('Reset complete');
    expect(nukeCalls).toHaveLength(2);
    expect(nukeCalls[1]).toMatchObject({ dry_run: false, expected_plan_hash: planHash, reason: 'e2e: clean slate' });
    expect(typeof nukeCalls[1]!.idempotency_key).toBe('string');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '44-nuke-complete');

    // Stores emptied; the same token (bearer and browser session) still works.
    expect(await storeCounts(own)).toEqual({ events: 0, mailbox: 0, conversations: 0 });
    expect((await own.rpc('health.ping')).ok).toBe(true);
    await dialog.close().click();
    await page.goto(`${own.url}/events`);
    await expect(new EventsPage(page).noEventsYet()).toBeVisible();
    await page.goto(`${own.url}/mailbox`);
    await expect(new MailboxQueue(page).empty()).toBeVisible();
    await expect(new SignInScreen(page).tokenInput).toHaveCount(0);
  });

  test('a plan that went stale is refused with what changed, and the fresh plan is offered in place', async ({ page }) => {
    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    const status = await own.rpc('runtime.status');
    const dialog = await runtime.openNuke();
    const firstHash = await dialog.planHash.innerText();
    // The runtime moves on after the preview.
    await own.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-stale' } });
    await settled(own);
    // The fingerprint prefix arms as well as the name.
    await dialog.confirmAndApply(status.bundle.fingerprint.slice(0, 'sha256:'.length + 10), 'e2e: stale plan');
    const stale = dialog.stale;
    await expect(stale).toContainText('Nothing was reset');
    await expect(dialog.whatChanged()).toContainText('remove events');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '46-nuke-plan-stale');
    expect((await storeCounts(own)).events).toBeGreaterThan(0);
    // The refusal is in the reset audit, with what changed.
    const refused = (await own.rpc('runtime.resets', {})).resets[0]!;
    expect(refused).toMatchObject({ status: 'refused', reason: 'e2e: stale plan' });
    expect((refused.result as { diff?: Record<string, number> }).diff?.events).toBeGreaterThan(0);
    // Asked again in place: still armed, the reason kept, the apply now carries the new plan.
    await dialog.useFreshPlan.click();
    await expect(dialog.planReplaced).toContainText('The plan was updated');
    await expect(dialog.reason).toHaveValue('e2e: stale plan');
    await expect(dialog.apply).toBeVisible();
    await expect(dialog.stale).toHaveCount(0);
    expect(firstHash).toMatch(/^sha256:/);
  });
});

test.describe('nuke with a container that will not stop', () => {
  test.describe.configure({ timeout: 120_000 });
  let own: ServerProcess;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    // A real entity container that ignores SIGTERM (it exits when the runtime closes its stdin), and
    // a short stop timeout: the reset's managed-container stop fails for real.
    own = await ServerProcess.start({
      env: {
        SWITCHBOARD_DEMO: 'off',
        SWITCHBOARD_CONTAINER_COMMAND: "trap '' TERM; read _ || true; exit 0",
        SWITCHBOARD_CONTAINER_STOP_TIMEOUT_MS: '300',
      },
    });
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('a forced container stop failure shows partial_failure with its error, never a success screen', async ({ page }) => {
    await own.rpc('event.publish', {
      event_name: 'ticket.created',
      entity_id: 'ticket-T-stuck',
      payload: { ticket_id: 'T-stuck', order_id: 'ORD-1', customer: 'Stuck Container', subject: 'Container ignores SIGTERM', channel: 'email' },
    });
    await expect
      .poll(async () => Number((await own.rpc('runtime.nuke', { dry_run: true })).containers.count ?? 0), { message: 'a managed container', timeout: 45_000 })
      .toBeGreaterThan(0);
    await settled(own);
    const status = await own.rpc('runtime.status');

    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    const dialog = await runtime.openNuke();
    await expect(dialog.preview).toContainText('Stops 1 managed container');
    await dialog.confirmAndApply(status.name, 'e2e: forced stop failure');

    const outcome = dialog.outcome;
    await expect(outcome).toHaveAttribute('data-status', 'partial_failure', { timeout: 30_000 });
    await expect(dialog.outcomeAlert()).toContainText('Reset ended in partial failure');
    const errors = dialog.errors;
    await expect(errors).toContainText('containers');
    await expect(errors).toContainText(/did not exit within 300 ms of SIGTERM/);
    await expect(outcome).not.toContainText('Reset complete');
    await expect(dialog.outcomeSuccess()).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '45-nuke-partial-failure');
  });
});
