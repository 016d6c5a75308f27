import { seriousViolations } from '../console-checks';
import { expect, test } from '../fixtures';
import { AdminPage, signInByPasting } from '../pages/people-page';
import { personWithToken } from '../people';
import { removeAlerts, seedAlerts } from '../alerts-seed';
import { AlertsPage } from '../pages/alerts-page';
import { startWebhookReceiver } from '../webhook-receiver';

test.describe('accessibility (axe): no serious or critical violations', () => {
  test('sign-in screen', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByLabel('Access token')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Access token').fill('sbk_wrong_token_for_axe');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('incidents, with and without the detail panel', async ({ signedIn: page, server }) => {
    await expect.poll(async () => (await server.rpc('runtime.incidents', { since_hours: 24 })).incidents.length, { message: 'an incident', timeout: 90_000 }).toBeGreaterThan(0);
    await page.goto('/incidents');
    await expect(page.getByTestId('incident-row').first()).toBeVisible();
    await expect(page.getByTestId('heartbeat')).toContainText('Healthy');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId('incident-row').first().click();
    await expect(page.getByTestId('log-record').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('events, with and without the detail panel', async ({ signedIn: page }) => {
    await page.goto('/events');
    await expect(page.getByTestId('event-row').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId('event-row').first().click();
    await expect(page.getByTestId('json-tree')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('dead letters, with the detail panel', async ({ signedIn: page, server }) => {
    await expect.poll(async () => (await server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 })).events.length, { message: 'a dead letter', timeout: 90_000 }).toBeGreaterThan(0);
    await page.goto('/dead-letters');
    await expect(page.getByTestId('event-row').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId('event-row').first().click();
    await expect(page.getByTestId('dead-letter').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('admin screen, the create-token dialog and its secret, and a viewer\'s refused actions', async ({ page, server }) => {
    const admin = await personWithToken(server, 'admin', 'axe');
    const viewer = await personWithToken(server, 'viewer', 'axe');
    await signInByPasting(page, admin.secret, '/admin');
    const adminPage = new AdminPage(page);
    await expect(adminPage.users.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await adminPage.createTokenFor(`${viewer.name} (viewer)`, 'axe-token');
    expect(await seriousViolations(page)).toEqual([]);
    await adminPage.stored.click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInByPasting(page, viewer.secret, '/runtime');
    await expect(page.getByTestId('open-nuke')).toContainText('needs admin');
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('alerts: rules, the rule form, destinations, history and the silence form', async ({ signedIn: page, server }) => {
    const receiver = await startWebhookReceiver();
    const seeded = await seedAlerts(server, receiver.url, 'axe');
    try {
      const alerts = new AlertsPage(page);
      await page.goto('/alerts');
      await expect(alerts.ruleRow(seeded.rule.name)).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await alerts.addRule.click();
      await expect(alerts.ruleDialog.getByTestId('rule-destinations')).toBeVisible();
      await alerts.ruleDialog.getByLabel('When').selectOption('incident.occurrences');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await alerts.ruleRow(seeded.rule.name).getByTestId('silence-rule').click();
      await expect(alerts.silenceDialog).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await alerts.tab('destinations').click();
      await expect(alerts.destinationRow(seeded.destination.name)).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`/alerts/history?destination=${seeded.destination.id}`);
      await expect(alerts.notices.first()).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await alerts.tab('silences').click();
      await expect(page.getByText('Nothing is silenced').or(alerts.silences.first())).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await removeAlerts(server, seeded.ruleNames, seeded.destinationNames);
      await receiver.close();
    }
  });

  test('empty and not-found states', async ({ signedIn: page }) => {
    await page.goto('/events?event_name=no.such.event');
    await expect(page.getByText('No events match these filters')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto('/no-such-screen');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
