import type { Page } from '@playwright/test';
import { ServerProcess } from '../server-process';
import { eventually, expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

async function settled(server: ServerProcess) {
  await eventually('the runtime to settle', async () => {
    const s = await server.rpc('runtime.status');
    return s.active_runs === 0 && s.pending_deliveries === 0 && s.queue_depth === 0;
  }, 60_000);
}

/** Record counts in the stores a reset empties, read through the API. */
async function storeCounts(server: ServerProcess) {
  const [events, items, conversations] = await Promise.all([
    server.rpc('event.list', { limit: 500 }),
    server.rpc('mailbox.list', { limit: 500 }),
    server.rpc('conversation.list', { limit: 500 }),
  ]);
  return { events: events.events.length, mailbox: items.items.length, conversations: conversations.conversations.length };
}

async function openNukeDialog(page: Page) {
  await page.getByTestId('open-nuke').click();
  const dialog = page.getByTestId('nuke-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('nuke-preview')).toBeVisible();
  return dialog;
}

test.describe('runtime page on its own server (the reset empties it)', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 });
  let own: ServerProcess;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    own = await ServerProcess.start();
    // The demo scenario runs in the background after boot; wait for its traffic and for quiet.
    await eventually('demo mailbox items', async () => (await own.rpc('mailbox.list', { limit: 1 })).items.length > 0, 90_000);
    await settled(own);
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('pause and resume ingress, each confirmed, with the queue depth shown', async ({ page }) => {
    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    await expect(page.getByTestId('ingress-state')).toHaveText('open');
    await expect(page.getByTestId('bundle-fingerprint')).toHaveText(/^sha256:[0-9a-f]{64}$/);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '40-runtime');

    const keys: string[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body && /"runtime\.(pause|resume)"/.test(body)) keys.push(JSON.parse(body).params.idempotency_key);
    });
    await page.getByRole('button', { name: 'Pause ingress…' }).click();
    const dialog = page.getByTestId('ingress-dialog');
    await expect(dialog).toContainText('queued durably');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByLabel('Reason (optional)').fill('e2e: pause to check queueing');
    await dialog.getByTestId('confirm-ingress').click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('ingress-state')).toHaveText('paused');
    expect((await own.rpc('runtime.status')).ingress).toBe('paused');

    await own.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-paused' } });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByTestId('queue-depth')).toHaveText('1 queued');

    await page.getByRole('button', { name: 'Resume ingress…' }).click();
    await expect(dialog).toContainText('1 queued publish become eligible for dispatch, each exactly once');
    await dialog.getByTestId('confirm-ingress').click();
    await expect(page.getByRole('status').filter({ hasText: 'Ingress resumed' })).toContainText('1 queued publish released');
    await expect(page.getByTestId('ingress-state')).toHaveText('open');
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
    await page.goto(`${own.url}/runtime`);
    const nukeCalls: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body?.includes('"runtime.nuke"')) nukeCalls.push(JSON.parse(body).params);
    });
    const dialog = await openNukeDialog(page);
    // Step 1: every owner's preview, with counts.
    for (const owner of ['owner-plan', 'owner-quiescence', 'owner-cleanup', 'owner-containers']) await expect(dialog.getByTestId(owner)).toBeVisible();
    await expect(dialog.getByTestId('nuke-preview')).toContainText(/Removes [\d,]+ records/);
    await expect(dialog.getByTestId('owner-cleanup')).toContainText('would keep');
    await expect(dialog.getByTestId('owner-containers')).toContainText('would stop');
    expect(nukeCalls).toEqual([{ dry_run: true }]);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '41-nuke-step1-preview');
    // Nothing changed.
    expect(await storeCounts(own)).toEqual(before);
    expect((await own.rpc('runtime.status')).ingress).toBe('open');
    const planHash = await dialog.getByTestId('plan-hash').innerText();

    // Step 2: only the runtime's name (or a fingerprint prefix) arms the next step.
    await dialog.getByRole('button', { name: 'Continue' }).click();
    const input = dialog.getByTestId('nuke-confirm-input');
    const arm = dialog.getByTestId('nuke-arm');
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
    const apply = dialog.getByTestId('nuke-apply');
    await apply.click();
    await expect(dialog.getByRole('alert')).toContainText('Say why');
    expect(nukeCalls).toHaveLength(1);
    await dialog.getByTestId('nuke-reason').fill('e2e: clean slate');
    await shotAtBothWidths(page, '43-nuke-step3-apply');
    await apply.click();
    const outcome = dialog.getByTestId('nuke-outcome');
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
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await page.goto(`${own.url}/events`);
    await expect(page.getByText('No events yet')).toBeVisible();
    await page.goto(`${own.url}/mailbox`);
    await expect(page.getByText('The mailbox is empty')).toBeVisible();
    await expect(page.getByLabel('Access token')).toHaveCount(0);
  });

  test('a plan that went stale is refused with what changed, and a fresh preview is offered', async ({ page }) => {
    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const status = await own.rpc('runtime.status');
    const dialog = await openNukeDialog(page);
    const firstHash = await dialog.getByTestId('plan-hash').innerText();
    // The runtime moves on after the preview.
    await own.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-stale' } });
    await settled(own);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    // The fingerprint prefix arms as well as the name.
    await dialog.getByTestId('nuke-confirm-input').fill(status.bundle.fingerprint.slice(0, 'sha256:'.length + 10));
    await dialog.getByTestId('nuke-arm').click();
    await dialog.getByTestId('nuke-reason').fill('e2e: stale plan');
    await dialog.getByTestId('nuke-apply').click();
    const stale = dialog.getByTestId('plan-stale');
    await expect(stale).toContainText('Nothing was reset');
    await expect(stale.getByRole('table', { name: 'What changed' })).toContainText('remove events');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '46-nuke-plan-stale');
    expect((await storeCounts(own)).events).toBeGreaterThan(0);
    await stale.getByRole('button', { name: 'Review the fresh preview' }).click();
    await expect(dialog.getByTestId('nuke-preview')).toBeVisible();
    await expect(dialog.getByTestId('plan-hash')).not.toHaveText(firstHash);
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
    await eventually('a managed container', async () => {
      const r = await own.rpc('runtime.nuke', { dry_run: true });
      return Number(r.containers.count ?? 0) > 0;
    });
    await settled(own);
    const status = await own.rpc('runtime.status');

    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const dialog = await openNukeDialog(page);
    await expect(dialog.getByTestId('nuke-preview')).toContainText('Stops 1 managed container');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.getByTestId('nuke-confirm-input').fill(status.name);
    await dialog.getByTestId('nuke-arm').click();
    await dialog.getByTestId('nuke-reason').fill('e2e: forced stop failure');
    await dialog.getByTestId('nuke-apply').click();

    const outcome = dialog.getByTestId('nuke-outcome');
    await expect(outcome).toHaveAttribute('data-status', 'partial_failure', { timeout: 30_000 });
    await expect(outcome.getByRole('alert')).toContainText('Reset ended in partial failure');
    const errors = outcome.getByTestId('nuke-errors');
    await expect(errors).toContainText('containers');
    await expect(errors).toContainText(/did not exit within 300 ms of SIGTERM/);
    await expect(outcome).not.toContainText('Reset complete');
    await expect(outcome.locator('.callout-ok')).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '45-nuke-partial-failure');
  });
});
