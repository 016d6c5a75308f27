import type { Result } from '@switchboard/contract';
import { expect, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';
import { IncidentsPage } from '../pages/incidents-page';
import { ConsoleShell } from '../pages/shell-page';

test('an MCP incident is found by filtering on its component, and its detail links to a real dead letter', async ({ signedIn: page, server }) => {
  test.setTimeout(120_000);
  // Demo traffic produces failing MCP tool calls; wait until one has dead-lettered.
  type Incident = Result<'runtime.incidents'>['incidents'][number];
  type Log = Result<'runtime.incident_logs'>['logs'][number];
  const withDeadLetter = async (): Promise<{ incident: Incident; log: Log } | undefined> => {
    const { incidents } = await server.rpc('runtime.incidents', { mcp_only: true, since_hours: 24, limit: 50 });
    for (const incident of incidents) {
      const { logs } = await server.rpc('runtime.incident_logs', { incident_id: incident.incident_id, since_hours: 24 });
      // A record names its dead letter, or its delivery that dead-lettered.
      for (const log of logs) {
        if (!log.event_id) continue;
        if (log.dead_letter_id) return { incident, log };
        const { events } = await server.rpc('event.list', { filter: { event_id: log.event_id }, limit: 1 });
        const dl = events[0]?.dead_letters.find((d) => d.delivery_id && d.delivery_id === log.delivery_id);
        if (dl) return { incident, log: { ...log, dead_letter_id: dl.dead_letter_id } };
      }
    }
    return undefined;
  };
  let found: Awaited<ReturnType<typeof withDeadLetter>>;
  await expect.poll(async () => (found = await withDeadLetter()), { message: 'an MCP incident whose sample logs name a dead letter', timeout: 90_000 }).toBeDefined();
  const { incident, log } = found!;

  const incidents = new IncidentsPage(page);
  await incidents.goto();
  await incidents.component.fill(incident.component);
  await expect(page).toHaveURL(new RegExp(`component=${encodeURIComponent(incident.component).replace(/\./g, '\\.')}`));
  const rows = incidents.rows;
  // Retried: the unfiltered rows stay on screen for a render after the URL changes.
  await expect(async () => {
    const texts = await rows.allInnerTexts();
    expect(texts.length, 'rows shown').toBeGreaterThan(0);
    for (const text of texts) expect(text).toContain(incident.component);
  }).toPass({ timeout: 15_000 });

  await incidents.mcpOnly.check();
  await expect(page).toHaveURL(/mcp=1/);
  await expect(rows.first()).toBeVisible();

  await incidents.open(incident.incident_id);
  await expect(incidents.detail).toBeVisible();
  await expect(incidents.logRecords.first()).toBeVisible();

  const link = incidents.deadLetterLink(log.dead_letter_id!);
  await expect(link).toBeVisible();
  await link.click();

  await expect(page).toHaveURL(/\/dead-letters\?/);
  const card = new EventsPage(page).currentDeadLetter;
  await expect(card).toContainText(log.dead_letter_id!);
  await expect(card).toContainText('Failure type');
  await expect(card).toContainText('Handler node');
  // It is a real dead letter: the API has it on that event.
  const { events } = await server.rpc('event.list', { filter: { event_id: log.event_id } });
  expect(events[0]!.dead_letters.map((d) => d.dead_letter_id)).toContain(log.dead_letter_id);
});

test('the window, state and sort live in the URL, and choosing a default removes it', async ({ signedIn: page }) => {
  const incidents = new IncidentsPage(page);
  await incidents.goto();
  await expect(new ConsoleShell(page).pageHeading('Incidents')).toBeVisible();
  await incidents.window.selectOption({ label: 'Last 7 days' });
  await incidents.state.selectOption('all');
  await incidents.sort.selectOption('count');
  await expect(page).toHaveURL(/window=168/);
  await expect(page).toHaveURL(/state=all/);
  await expect(page).toHaveURL(/sort=count/);
  await expect(incidents.windowSummary(168)).toBeVisible();
  await incidents.window.selectOption({ label: 'Last 24 hours' });
  await incidents.state.selectOption('active');
  await incidents.sort.selectOption('severity');
  await expect(page).toHaveURL(/\/incidents$/);
});
