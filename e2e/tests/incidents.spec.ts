import { eventually, expect, test } from '../fixtures';

test('an MCP incident is found by filtering on its component, and its detail links to a real dead letter', async ({ signedIn: page, server }) => {
  test.setTimeout(120_000);
  // Demo traffic produces failing MCP tool calls; wait until one has dead-lettered.
  const { incident, log } = await eventually('an MCP incident whose sample logs name a dead letter', async () => {
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
  }, 90_000);

  await page.goto('/incidents');
  await page.getByLabel('Component').fill(incident.component);
  await expect(page).toHaveURL(new RegExp(`component=${encodeURIComponent(incident.component).replace(/\./g, '\\.')}`));
  const rows = page.getByTestId('incident-row');
  await expect(rows.first()).toBeVisible();
  for (const text of await rows.allInnerTexts()) expect(text).toContain(incident.component);

  await page.getByLabel('MCP only').check();
  await expect(page).toHaveURL(/mcp=1/);
  await expect(rows.first()).toBeVisible();

  await page.locator(`a[href*="selected=${encodeURIComponent(incident.incident_id)}"]`).click();
  const detail = page.getByRole('complementary', { name: 'Incident details' });
  await expect(detail).toBeVisible();
  await expect(detail.getByTestId('log-record').first()).toBeVisible();

  const link = detail.getByTestId('dead-letter-link').filter({ hasText: log.dead_letter_id! }).first();
  await expect(link).toBeVisible();
  await link.click();

  await expect(page).toHaveURL(/\/dead-letters\?/);
  const eventDetail = page.getByRole('complementary', { name: 'Event details' });
  const card = eventDetail.locator('[data-testid="dead-letter"][aria-current="true"]');
  await expect(card).toContainText(log.dead_letter_id!);
  await expect(card).toContainText('Failure type');
  await expect(card).toContainText('Handler node');
  // It is a real dead letter: the API has it on that event.
  const { events } = await server.rpc('event.list', { filter: { event_id: log.event_id } });
  expect(events[0]!.dead_letters.map((d) => d.dead_letter_id)).toContain(log.dead_letter_id);
});
