/** Screenshots of each screen at 1280 and 390 px wide, for a person to look at (scratch/screens). */
import { shotAtBothWidths } from '../console-checks';
import { eventually, expect, signInContext, test } from '../fixtures';

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
