import { seriousViolations } from '../console-checks';
import { expect, test } from '../fixtures';
import { AdminPage, signInByPasting } from '../pages/people-page';
import { personWithToken } from '../people';
import { removeAlerts, seedAlerts } from '../alerts-seed';
import { AlertsPage } from '../pages/alerts-page';
import { EventsPage } from '../pages/events-page';
import { IncidentsPage } from '../pages/incidents-page';
import { RuntimePage } from '../pages/runtime-page';
import { ConsoleShell, NotFoundScreen } from '../pages/shell-page';
import { SignInScreen } from '../pages/sign-in-page';
import { startWebhookReceiver } from '../webhook-receiver';

test.describe('accessibility (axe): no serious or critical violations', () => {
  test('sign-in screen', async ({ page }) => {
    const signIn = new SignInScreen(page);
    await signIn.goto();
    await expect(signIn.tokenInput).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await signIn.submit('sbk_wrong_token_for_axe');
    await expect(signIn.error).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('incidents, with and without the detail panel', async ({ signedIn: page, server }) => {
    await expect.poll(async () => (await server.rpc('runtime.incidents', { since_hours: 24 })).incidents.length, { message: 'an incident', timeout: 90_000 }).toBeGreaterThan(0);
    const incidents = new IncidentsPage(page);
    await incidents.goto();
    await expect(incidents.rows.first()).toBeVisible();
    await expect(new ConsoleShell(page).heartbeat).toContainText('Healthy');
    expect(await seriousViolations(page)).toEqual([]);
    await incidents.rows.first().click();
    await expect(incidents.logRecords.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('events, with and without the detail panel', async ({ signedIn: page }) => {
    const events = new EventsPage(page);
    await events.goto();
    await expect(events.rows.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await events.rows.first().click();
    await expect(events.jsonTree).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('dead letters, with the detail panel', async ({ signedIn: page, server }) => {
    await expect.poll(async () => (await server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 })).events.length, { message: 'a dead letter', timeout: 90_000 }).toBeGreaterThan(0);
    const events = new EventsPage(page);
    await page.goto('/dead-letters');
    await expect(events.rows.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await events.rows.first().click();
    await expect(events.deadLetterCards.first()).toBeVisible();
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
    await new ConsoleShell(page).signOut.click();
    await signInByPasting(page, viewer.secret, '/runtime');
    await expect(new RuntimePage(page).openNukeButton).toContainText('needs admin');
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
      await expect(alerts.ruleDestinations).toBeVisible();
      await alerts.ruleTrigger.selectOption('incident.occurrences');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await alerts.ruleAction(alerts.ruleRow(seeded.rule.name), 'silence-rule').click();
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
      await expect(alerts.nothingSilenced.or(alerts.silences.first())).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await removeAlerts(server, seeded.ruleNames, seeded.destinationNames);
      await receiver.close();
    }
  });

  test('empty and not-found states', async ({ signedIn: page }) => {
    await new EventsPage(page).goto('?event_name=no.such.event');
    await expect(new EventsPage(page).noMatch).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto('/no-such-screen');
    await expect(new NotFoundScreen(page).heading).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('the scan reports a violation planted in a screen', async ({ signedIn: page }) => {
    await new EventsPage(page).goto();
    await expect(new EventsPage(page).rows.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    // A button with no accessible name, added after the first scan injected axe into the page.
    await page.evaluate(() => document.querySelector('main')?.append(Object.assign(document.createElement('button'), { id: 'planted-unnamed' })));
    expect(await seriousViolations(page)).toContainEqual(expect.objectContaining({ id: 'button-name', impact: 'critical', targets: ['#planted-unnamed'] }));
  });
});
