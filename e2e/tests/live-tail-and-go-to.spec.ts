import { expect, test } from '../fixtures';
import { TranscriptPage } from '../pages/agents-page';
import { EventsPage } from '../pages/events-page';
import { IncidentsPage } from '../pages/incidents-page';
import { OperationsSection } from '../pages/recovery-page';
import { ConsoleShell, GoToIdBox } from '../pages/shell-page';

test('with live tail on, new events show as a "N new events" bar and the rows stay put until asked', async ({ signedIn: page, server }) => {
  const entity = `tail-test-${Date.now().toString(36)}`;
  const publish = (i: number) => server.rpc('event.publish', { event_name: 'survey.requested', entity_id: entity, payload: { ticket_id: `T-tail-${i}` } });
  for (let i = 0; i < 3; i++) await publish(i);

  await page.goto(`/events?entity_id=${entity}&live=1`);
  const events = new EventsPage(page);
  const rows = events.rows;
  await expect(rows).toHaveCount(3);
  const before = await events.rowNames();

  await publish(3);
  await publish(4);
  const bar = events.newEventsBar;
  await expect(bar).toHaveText(/2 new events/, { timeout: 15_000 });
  // Nothing moved under the cursor.
  expect(await events.rowNames()).toEqual(before);

  await bar.click();
  await expect(rows).toHaveCount(5);
  expect((await events.rowNames()).slice(2)).toEqual(before);
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
  const shell = new ConsoleShell(page);
  const events = new EventsPage(page);
  await expect(shell.pageHeading('Incidents')).toBeVisible();
  const box = new GoToIdBox(page).box;

  await page.keyboard.press('/');
  await expect(box).toBeFocused();
  await box.fill(eventId);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/events\\?.*selected=${eventId}`));
  await expect(events.detail).toContainText(eventId);

  await box.fill(published.run_id);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/events\\?run_id=${published.run_id}$`));
  await expect(events.runSummary).toContainText(published.run_id);

  await box.fill(entity);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/events\\?entity_id=${entity}$`));
  await expect(events.rows).toHaveCount(1);

  await box.fill('no_such_id_anywhere');
  await box.press('Enter');
  await expect(shell.status('No record has the id “no_such_id_anywhere”')).toBeVisible();
});

test('"go to id" opens every kind of id the console shows: mailbox item, agent, session, turn, dead letter, delivery, log record, operation', async ({ signedIn: page, server }) => {
  const { items } = await server.rpc('mailbox.list', { limit: 1 });
  const { agents } = await server.rpc('agent.list', { limit: 1 });
  const { conversations } = await server.rpc('conversation.list', { limit: 1 });
  const { turns } = await server.rpc('conversation.get', { session_id: conversations[0]!.session_id });
  const { events } = await server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 });
  const dead = events[0]!;
  const { incidents } = await server.rpc('runtime.incidents', { limit: 1 });
  const published = await server.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-goto-op' } });
  const estimate = await server.rpc('event.replay', { dry_run: true, event_ids: [published.event_id!] });
  const replay = await server.rpc('event.replay', { dry_run: false, event_ids: [published.event_id!], expected_plan_hash: estimate.plan.plan_hash });

  const shell = new ConsoleShell(page);
  const browser = new EventsPage(page);
  const cases: { id: string; url: RegExp; shows: () => Promise<void> }[] = [
    { id: items[0]!.mailbox_id, url: new RegExp(`/mailbox/${items[0]!.mailbox_id}`), shows: () => expect(shell.text(items[0]!.mailbox_id).first()).toBeVisible() },
    { id: agents[0]!.agent_id, url: new RegExp(`/agents/${agents[0]!.agent_id}`), shows: () => expect(shell.anyHeading(agents[0]!.agent_id).first()).toBeVisible() },
    { id: conversations[0]!.session_id, url: new RegExp(`/conversations/${conversations[0]!.session_id}`), shows: () => expect(new TranscriptPage(page).turns.first()).toBeVisible() },
    { id: turns[0]!.turn_id, url: new RegExp(`/conversations/${conversations[0]!.session_id}[?]turn=${turns[0]!.turn_id}`), shows: () => expect(shell.text(turns[0]!.turn_id).first()).toBeVisible() },
    {
      id: dead.dead_letters[0]!.dead_letter_id,
      url: new RegExp(`/dead-letters[?].*dead_letter=${dead.dead_letters[0]!.dead_letter_id}`),
      shows: () => expect(browser.currentDeadLetter).toContainText(dead.dead_letters[0]!.dead_letter_id),
    },
    {
      id: dead.deliveries[0]!.delivery_id,
      url: new RegExp(`/events[?].*selected=${dead.event_id}`),
      shows: () => expect(browser.detail).toContainText(dead.deliveries[0]!.delivery_id),
    },
    {
      id: incidents[0]!.sample_log_ids[0]!,
      url: /\/incidents\?.*selected=inc_/,
      shows: () => expect(new IncidentsPage(page).detail).toContainText(incidents[0]!.sample_log_ids[0]!),
    },
    {
      id: replay.operation!.operation_id,
      url: new RegExp(`/runtime[?]operation=${replay.operation!.operation_id}`),
      shows: () => expect(new OperationsSection(page).progress).toContainText(replay.operation!.operation_id),
    },
  ];
  await page.goto('/incidents');
  const box = new GoToIdBox(page).box;
  for (const c of cases) {
    await box.fill(c.id);
    await box.press('Enter');
    await expect(page, c.id).toHaveURL(c.url);
    await c.shows();
  }
});
