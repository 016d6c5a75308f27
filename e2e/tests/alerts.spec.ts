/**
 * The Alerts screen against the real server and a real webhook receiver: an operator adds a
 * webhook destination (its secret shown once) and a rule in the console, sends a test notice, and
 * sees it delivered in the history while the receiver got it, signed with that secret. A silence
 * made from a rule shows on the rule and ends from the Silences list. A viewer sees every action
 * disabled, saying it needs an operator. An incident's page silences alerts for that incident. A
 * notice the receiver refused until retries ran out shows failed with its error, and "Resend"
 * delivers it with the same id.
 */
import { Webhook } from 'standardwebhooks';
import { alertKey as key, removeAlerts, shortTag } from '../alerts-seed';
import { eventually, expect, signInContext, test } from '../fixtures';
import { AlertsPage } from '../pages/alerts-page';
import { IncidentsPage } from '../pages/incidents-page';
import { expectRefused, signInByPasting } from '../pages/people-page';
import { personWithToken } from '../people';
import { ServerProcess } from '../server-process';
import { startWebhookReceiver } from '../webhook-receiver';

test('an operator adds a webhook and a rule, sends a test notice, and sees it delivered in the history', async ({ page, server }) => {
  const receiver = await startWebhookReceiver();
  const operator = await personWithToken(server, 'operator', 'alerts');
  const destinationName = `e2e hook ${shortTag()}`;
  const ruleName = `e2e rule ${shortTag()}`;
  try {
    await signInByPasting(page, operator.secret, '/alerts');
    const alerts = new AlertsPage(page);
    await expect(page.getByRole('heading', { name: 'Alerts', level: 1 })).toBeVisible();

    const secret = await alerts.addWebhook(destinationName, receiver.url);
    const destination = alerts.destinationRow(destinationName);
    await expect(destination).toBeVisible();
    await expect(destination.getByTestId('destination-url')).toHaveText(receiver.url);
    // The list never shows the secret again.
    await expect(page.getByText(secret)).toHaveCount(0);

    // A server dies only with several servers: this rule sends nothing to the receiver but the test notice.
    await alerts.addRuleFor(ruleName, 'Server declared dead', [destinationName]);
    const rule = alerts.ruleRow(ruleName);
    await expect(rule.getByTestId('rule-trigger-words')).toHaveText('A server is declared dead');
    await expect(rule).toContainText(`Notifies ${destinationName}`);
    await expect(rule).toContainText('enabled');

    // Disabling and enabling again is one click each.
    await rule.getByTestId('toggle-rule').click();
    await expect(rule).toContainText('disabled');
    await rule.getByTestId('toggle-rule').click();
    await expect(rule).toContainText('enabled');

    // A test notice goes through the durable path: queued, then delivered, and the receiver has it.
    await alerts.tab('destinations').click();
    await destination.getByTestId('send-test-notice').click();
    const sent = destination.getByTestId('test-notice-sent');
    await expect(sent).toBeVisible();
    const noticeId = (await sent.getAttribute('data-notice-id'))!;
    await sent.getByTestId('test-notice-history').click();
    await expect(page).toHaveURL(/\/alerts\/history\?destination=/);
    await expect(alerts.notices).toHaveCount(1);
    const notice = alerts.notice(noticeId);
    await expect(notice).toContainText('Test notice');
    await expect(notice).toContainText(destinationName);
    await expect(notice.getByTestId('notice-status')).toHaveText('delivered', { timeout: 30_000 });

    const request = await receiver.request(noticeId);
    expect(request.headers['webhook-id']).toBe(noticeId);
    // Signed with the secret the console showed once: the receiver's library accepts it.
    const payload = new Webhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as { type: string };
    expect(payload.type).toBe('test');

    // The status filter lives in the URL: delivered keeps it, failed shows none.
    await page.getByTestId('notices-status').selectOption('delivered');
    await expect(page).toHaveURL(/status=delivered/);
    await expect(alerts.notices).toHaveCount(1);
    await page.getByTestId('notices-status').selectOption('failed');
    await expect(page.getByText('No notices match these filters')).toBeVisible();

    // A silence made from the rule shows on it, is listed, and ends on request.
    await alerts.tab('rules').click();
    await rule.getByTestId('silence-rule').click();
    await expect(alerts.silenceDialog).toBeVisible();
    await alerts.silenceDialog.getByTestId('silence-for-4h').click();
    await alerts.silenceDialog.getByTestId('confirm-silence').click();
    await expect(alerts.silenceDialog.getByRole('alert')).toContainText('Say why');
    await alerts.silenceDialog.getByLabel('Reason (required)').fill('e2e: planned maintenance');
    await alerts.silenceDialog.getByTestId('confirm-silence').click();
    await expect(alerts.silenceDialog).toBeHidden();
    await expect(rule.getByTestId('rule-silenced')).toContainText('silenced, ends');
    await alerts.tab('silences').click();
    const silence = alerts.silences.filter({ hasText: ruleName });
    await expect(silence).toContainText('e2e: planned maintenance');
    await expect(silence).toContainText(operator.name);
    await silence.getByTestId('end-silence').click();
    await expect(silence).toHaveCount(0);
    await page.getByTestId('silences-show-ended').check();
    await expect(page).toHaveURL(/ended=1/);
    await expect(alerts.silences.filter({ hasText: ruleName })).toContainText('ended');

    // A destination a rule still sends to cannot be deleted, and the dialog says why.
    await alerts.tab('destinations').click();
    await destination.getByTestId('delete-destination').click();
    const deleteDialog = page.getByTestId('delete-destination-dialog');
    await deleteDialog.getByTestId('confirm-delete-destination').click();
    await expect(deleteDialog.getByRole('alert')).toContainText('Alert rules still send to this destination');
    await expect(deleteDialog).toContainText(ruleName);
  } finally {
    await removeAlerts(server, [ruleName], [destinationName]);
    await receiver.close();
  }
});

test('a viewer sees the alerts but every action disabled, needing an operator', async ({ page, server }) => {
  const viewer = await personWithToken(server, 'viewer', 'alerts-viewer');
  const destinationName = `e2e viewer hook ${shortTag()}`;
  const ruleName = `e2e viewer rule ${shortTag()}`;
  const { destination } = await server.rpc('alert.destination_create', { name: destinationName, kind: 'webhook', url: 'https://example.invalid/hook', idempotency_key: key() });
  await server.rpc('alert.rule_create', { name: ruleName, when: { trigger: 'server.dead' }, destination_ids: [destination.id], enabled: false, idempotency_key: key() });
  try {
    await signInByPasting(page, viewer.secret, '/alerts');
    const alerts = new AlertsPage(page);
    const rule = alerts.ruleRow(ruleName);
    await expect(rule).toContainText('A server is declared dead');
    await expectRefused(alerts.addRule, 'needs operator');
    for (const action of ['edit-rule', 'toggle-rule', 'silence-rule', 'delete-rule']) await expectRefused(rule.getByTestId(action), 'needs operator');

    await alerts.tab('destinations').click();
    const row = alerts.destinationRow(destinationName);
    await expect(row).toBeVisible();
    await expectRefused(alerts.addDestination, 'needs operator');
    await expectRefused(row.getByTestId('send-test-notice'), 'needs operator');
    await expectRefused(row.getByTestId('delete-destination'), 'needs operator');

    await alerts.tab('silences').click();
    await expectRefused(alerts.addSilence, 'needs operator');
  } finally {
    await removeAlerts(server, [ruleName], [destinationName]);
  }
});

test('an incident page silences alerts for that incident, and the silence is listed', async ({ page, server }) => {
  const operator = await personWithToken(server, 'operator', 'alerts-incident');
  const incidentId = await eventually('an incident', async () => (await server.rpc('runtime.incidents', { since_hours: 24 })).incidents[0]?.incident_id, 90_000);
  const reason = `e2e: known incident ${shortTag()}`;
  await signInByPasting(page, operator.secret, `/incidents?state=all&selected=${encodeURIComponent(incidentId)}`);
  const incidents = new IncidentsPage(page);
  await incidents.detail.getByTestId('silence-incident').click();
  const alerts = new AlertsPage(page);
  await expect(alerts.silenceDialog).toContainText(incidentId);
  await alerts.silenceDialog.getByTestId('silence-for-1h').click();
  await alerts.silenceDialog.getByLabel('Reason (required)').fill(reason);
  await alerts.silenceDialog.getByTestId('confirm-silence').click();
  await expect(alerts.silenceDialog).toBeHidden();
  await expect(incidents.detail).toContainText('Silenced');

  await page.goto('/alerts/silences');
  const silence = alerts.silences.filter({ hasText: reason });
  await expect(silence).toContainText(incidentId);
  await silence.getByTestId('end-silence').click();
  await expect(silence).toHaveCount(0);
});

test('a failed notice shows its error, and Resend delivers it with the same id', async ({ page }) => {
  test.setTimeout(120_000);
  let answer = 500;
  const receiver = await startWebhookReceiver(() => answer);
  // Its own server: two quick attempts, so the notice fails within a second.
  const own = await ServerProcess.start({ env: { SWITCHBOARD_ALERT_MAX_ATTEMPTS: '2', SWITCHBOARD_ALERT_BACKOFF_MS: '50' } });
  try {
    const { destination } = await own.rpc('alert.destination_create', { name: 'flaky receiver', kind: 'webhook', url: receiver.url, idempotency_key: key() });
    const { notice } = await own.rpc('alert.test', { destination_id: destination.id, idempotency_key: key() });
    await eventually('the notice to fail', async () => (await own.rpc('alert.notices', { destination_id: destination.id })).items.find((n) => n.id === notice.id && n.status === 'failed'));

    await signInContext(page, own);
    await page.goto(`${own.url}/alerts/history?status=failed`);
    const alerts = new AlertsPage(page);
    const row = alerts.notice(notice.id);
    await expect(row.getByTestId('notice-status')).toHaveText('failed');
    await expect(row.getByTestId('notice-error')).toContainText('500');
    await expect(row).toContainText('2 attempts');

    answer = 204;
    await page.goto(`${own.url}/alerts/history?destination=${destination.id}`);
    await row.getByTestId('resend-notice').click();
    await expect(row.getByTestId('notice-status')).toHaveText('delivered', { timeout: 30_000 });
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(new Set(ids)).toEqual(new Set([notice.id]));
  } finally {
    await own.dispose();
    await receiver.close();
  }
});

test('the history loads more notices by keyset, and the keyboard reaches the forms', async ({ signedIn: page, server }) => {
  const receiver = await startWebhookReceiver();
  const destinationName = `e2e paging hook ${shortTag()}`;
  try {
    const { destination } = await server.rpc('alert.destination_create', { name: destinationName, kind: 'webhook', url: receiver.url, idempotency_key: key() });
    await server.rpcBatch(Array.from({ length: 55 }, () => ({ method: 'alert.test' as const, params: { destination_id: destination.id, idempotency_key: key() } })));

    await page.goto(`/alerts/history?destination=${destination.id}`);
    const alerts = new AlertsPage(page);
    await expect(alerts.notices).toHaveCount(50);
    await page.getByTestId('notices-load-more').click();
    await expect(alerts.notices).toHaveCount(55);
    await expect(page.getByText('All 55 notices loaded')).toBeVisible();
    expect(new Set(await alerts.notices.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-notice-id')))).size).toBe(55);

    // Keyboard only: the tab to the destinations, its add button, the dialog, and back.
    await alerts.tab('destinations').focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/alerts\/destinations$/);
    await alerts.addDestination.focus();
    await page.keyboard.press('Enter');
    await expect(alerts.destinationDialog.getByLabel('Name')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(alerts.destinationDialog).toBeHidden();
    await expect(alerts.addDestination).toBeFocused();
  } finally {
    await removeAlerts(server, [], [destinationName]);
    await receiver.close();
  }
});
