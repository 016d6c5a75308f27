/** Screenshots of each screen at 1280 and 390 px wide, for a person to look at (scratch/screens). */
import { shotAtBothWidths } from '../console-checks';
import { eventually, expect, signInContext, test } from '../fixtures';
import { removeAlerts, seedAlerts } from '../alerts-seed';
import { AlertsPage } from '../pages/alerts-page';
import { startWebhookReceiver } from '../webhook-receiver';

test('screenshots of sign-in, incidents, events and dead letters at 1280 and 390 px', async ({ page, server }) => {
  test.setTimeout(150_000);
  await page.goto('/');
  await expect(page.getByLabel('Access token')).toBeVisible();
  await shotAtBothWidths(page, '01-sign-in');
  await page.getByLabel('Access token').fill('sbk_wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await shotAtBothWidths(page, '02-sign-in-error');

  await signInContext(page, server);
  await eventually('a dead letter', async () => (await server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 })).events.length > 0, 90_000);
  await page.goto('/incidents');
  await expect(page.getByTestId('incident-row').first()).toBeVisible();
  await expect(page.getByTestId('heartbeat')).toContainText('Healthy');
  await shotAtBothWidths(page, '03-incidents');
  await page.getByTestId('heartbeat').focus();
  await shotAtBothWidths(page, '04-heartbeat-details');
  await page.getByTestId('heartbeat').blur();
  await page.getByTestId('incident-row').first().click();
  await expect(page.getByTestId('log-record').first()).toBeVisible();
  await shotAtBothWidths(page, '05-incident-detail');

  await page.goto('/events');
  await expect(page.getByTestId('event-row').first()).toBeVisible();
  await shotAtBothWidths(page, '06-events');
  await page.getByTestId('event-row').first().click();
  await expect(page.getByTestId('json-tree')).toBeVisible();
  await shotAtBothWidths(page, '07-event-detail');

  await page.goto('/dead-letters');
  await expect(page.getByTestId('event-row').first()).toBeVisible();
  await shotAtBothWidths(page, '08-dead-letters');
  await page.getByTestId('event-row').first().click();
  await expect(page.getByTestId('dead-letter').first()).toBeVisible();
  await shotAtBothWidths(page, '09-dead-letter-detail');

  await page.goto('/events?event_name=no.such.event');
  await expect(page.getByText('No events match these filters')).toBeVisible();
  await shotAtBothWidths(page, '10-events-empty');
});

test('screenshots of the Alerts screen at 1280 and 390 px, light and dark', async ({ signedIn: page, server }) => {
  test.setTimeout(150_000);
  const receiver = await startWebhookReceiver();
  const seeded = await seedAlerts(server, receiver.url, 'screens');
  try {
    const alerts = new AlertsPage(page);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('/alerts');
      await expect(alerts.ruleRow(seeded.rule.name)).toBeVisible();
      await shotAtBothWidths(page, `11-alerts-rules-${scheme}`);
      await alerts.addRule.click();
      await alerts.ruleDialog.getByLabel('When').selectOption('mailbox.sla');
      await shotAtBothWidths(page, `12-alerts-rule-form-${scheme}`);
      await page.keyboard.press('Escape');
      await alerts.tab('destinations').click();
      await expect(alerts.destinationRow(seeded.destination.name)).toBeVisible();
      await shotAtBothWidths(page, `13-alerts-destinations-${scheme}`);
      await page.goto('/alerts/history');
      await expect(alerts.notices.filter({ hasText: seeded.destination.name }).getByTestId('notice-status')).toHaveText('delivered', { timeout: 30_000 });
      await shotAtBothWidths(page, `14-alerts-history-${scheme}`);
      await alerts.tab('silences').click();
      await alerts.addSilence.click();
      await shotAtBothWidths(page, `15-alerts-silence-form-${scheme}`);
      await page.keyboard.press('Escape');
    }
  } finally {
    await removeAlerts(server, seeded.ruleNames, seeded.destinationNames);
    await receiver.close();
  }
});
