import { expect, test } from '../fixtures';

test('with live tail on, new events show as a "N new events" bar and the rows stay put until asked', async ({ signedIn: page, server }) => {
  const entity = `tail-test-${Date.now().toString(36)}`;
  const publish = (i: number) => server.rpc('event.publish', { event_name: 'survey.requested', entity_id: entity, payload: { ticket_id: `T-tail-${i}` } });
  for (let i = 0; i < 3; i++) await publish(i);

  await page.goto(`/events?entity_id=${entity}&live=1`);
  const rows = page.getByTestId('event-row');
  await expect(rows).toHaveCount(3);
  const before = await rows.locator('td:nth-child(3)').allInnerTexts();

  await publish(3);
  await publish(4);
  const bar = page.getByTestId('new-events');
  await expect(bar).toHaveText(/2 new events/, { timeout: 15_000 });
  // Nothing moved under the cursor.
  expect(await rows.locator('td:nth-child(3)').allInnerTexts()).toEqual(before);

  await bar.click();
  await expect(rows).toHaveCount(5);
  expect((await rows.locator('td:nth-child(3)').allInnerTexts()).slice(2)).toEqual(before);
  await expect(bar).toHaveCount(0);
});

test('"go to id" opens an event, a run and an entity by id, and says when nothing has the id', async ({ signedIn: page, server }) => {
  const entity = `goto-test-${Date.now().toString(36)}`;
  const published = await server.rpc('event.publish', {
    event_name: 'survey.requested',
    entity_id: entity,
    payload: { ticket_id: 'T-goto' },
  });
  // Ingress is open, so the publish answers with the event it stored (a paused one has none yet).
  const eventId = published.event_id!;
  expect(eventId).toMatch(/^evt_/);
  await page.goto('/incidents');
  await expect(page.getByRole('heading', { level: 1, name: 'Incidents' })).toBeVisible();
  const box = page.getByRole('searchbox', { name: 'Go to id' });

  await page.keyboard.press('/');
  await expect(box).toBeFocused();
  await box.fill(eventId);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/events\\?.*selected=${eventId}`));
  await expect(page.getByRole('complementary', { name: 'Event details' })).toContainText(eventId);

  await box.fill(published.run_id);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/events\\?run_id=${published.run_id}$`));
  await expect(page.getByRole('group', { name: 'Run summary' })).toContainText(published.run_id);

  await box.fill(entity);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/events\\?entity_id=${entity}$`));
  await expect(page.getByTestId('event-row')).toHaveCount(1);

  await box.fill('no_such_id_anywhere');
  await box.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'No event, run, entity, agent, session or mailbox item has the id' })).toBeVisible();
});
