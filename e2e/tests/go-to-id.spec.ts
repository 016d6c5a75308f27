/**
 * "Go to id" takes every id the console shows beyond records with pages of their own: incident,
 * server and token ids, and event sources as `kind:id`; a delivery lands on its card; a miss is
 * answered in the popover under the field, which closes with it. An event's source is a link.
 */
import { eventually, expect, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';
import { IncidentsPage } from '../pages/incidents-page';
import { ServersPanel } from '../pages/runtime-page';
import { ConsoleShell, GoToIdBox } from '../pages/shell-page';

test('"go to id" opens incidents, servers, sources and deliveries, names a token, and closes its answer with it', async ({ signedIn: page, server }) => {
  const { incidents } = await server.rpc('runtime.incidents', { limit: 1 });
  const incident = incidents[0]!;
  const { servers } = await server.rpc('health.check');
  const bySubscriber = await eventually('an event a node subscriber emitted', async () => {
    const { events } = await server.rpc('event.list', { limit: 200 });
    return events.find((e) => e.source.startsWith('node:') && e.deliveries.length > 0);
  });
  const subscriber = bySubscriber.source.slice('node:'.length);
  const delivered = bySubscriber.deliveries[0]!;
  const session = await (await page.request.get(`${server.url}/v1/auth/session`)).json();

  await page.goto('/incidents');
  const shell = new ConsoleShell(page);
  await expect(shell.heading).toBeVisible();
  const goTo = new GoToIdBox(page);

  await goTo.go(incident.incident_id);
  await expect(page).toHaveURL(new RegExp(`/incidents[?].*selected=${incident.incident_id}`));
  await expect(new IncidentsPage(page).detail).toBeVisible();

  await goTo.go(servers[0]!.server_id);
  await expect(page).toHaveURL(/\/runtime#servers$/);
  await expect(new ServersPanel(page).rows.first()).toBeVisible();

  await goTo.go(bySubscriber.source);
  await expect(page).toHaveURL(new RegExp(`/events[?]subscriber_id=${subscriber}$`));

  const events = new EventsPage(page);
  await goTo.go(delivered.delivery_id);
  await expect(page).toHaveURL(new RegExp(`/events[?].*delivery=${delivered.delivery_id}`));
  await expect(events.highlightedDelivery).toContainText(delivered.delivery_id);
  await expect(events.highlightedDelivery).toBeInViewport();

  // The event's source opens what it names.
  await goTo.go(bySubscriber.event_id);
  await expect(events.sourceLink).toHaveText(bySubscriber.source);
  await events.sourceLink.click();
  await expect(page).toHaveURL(new RegExp(`/events[?]subscriber_id=${subscriber}$`));

  // A token has no page: the answer says whose it is, in the popover.
  await goTo.go(session.token.id);
  await expect(goTo.answer).toContainText(`Access token “${session.token.name}”`);
  await expect(goTo.answer).toContainText(`of ${session.user.display_name} (${session.user.role})`);

  // A miss stays in the popover and closes with it: on Escape, and when focus leaves the field.
  const longId = `no_such_id_${'x'.repeat(120)}`;
  await goTo.go(longId);
  await expect(goTo.answer).toContainText('No record has the id');
  const answer = (await goTo.answer.boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(answer.x + answer.width).toBeLessThanOrEqual(width);
  expect(await goTo.answer.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await goTo.box.press('Escape');
  await expect(goTo.answer).toBeHidden();
  await goTo.go('no_such_id_anywhere');
  await expect(goTo.answer).toContainText('No record has the id “no_such_id_anywhere”');
  await shell.heading.click();
  await expect(goTo.answer).toBeHidden();
});
