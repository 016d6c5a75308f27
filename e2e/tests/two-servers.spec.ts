/**
 * Two server processes (servers) on one PostgreSQL database, the console open on server B: what is
 * published through server A's API shows in B's console within a second, carried by the change feed
 * (A's commit notifies B's listener, B tells its sockets, the console reads again). Needs
 * PostgreSQL: skipped with the reason when there is none, except on CI, where that is a failure.
 */
import type { Page } from '@playwright/test';
import { expect, signInContext, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';
import { ConsoleShell } from '../pages/shell-page';
import { createSpecDatabase, testPostgres, type SpecDatabase } from '../postgres-database';
import { ServerProcess } from '../server-process';

const postgres = testPostgres();
const onCi = process.env.CI === 'true';

/** When (browser clock, ms) the first element matching each selector appeared. */
async function watchFor(page: Page, selectors: Record<string, string>): Promise<void> {
  await page.evaluate((wanted) => {
    const seen: Record<string, number> = {};
    (window as unknown as { __appeared: Record<string, number> }).__appeared = seen;
    const check = () => {
      for (const [name, selector] of Object.entries(wanted)) if (seen[name] === undefined && document.querySelector(selector)) seen[name] = Date.now();
    };
    new MutationObserver(check).observe(document.body, { childList: true, subtree: true, characterData: true });
    check();
  }, selectors);
}

async function appearedAt(page: Page, name: string): Promise<number> {
  const handle = await page.waitForFunction((n) => (window as unknown as { __appeared: Record<string, number> }).__appeared[n], name, { timeout: 10_000 });
  return (await handle.jsonValue()) as number;
}

test.describe('two servers on one PostgreSQL database', () => {
  test.skip(!postgres.url && !onCi, `needs PostgreSQL: ${postgres.reason}. Set SWITCHBOARD_TEST_DATABASE_URL to a role that may create databases, or install postgresql`);
  test.describe.configure({ mode: 'serial', timeout: 120_000 });

  let database: SpecDatabase | undefined;
  let serverA: ServerProcess | undefined;
  let serverB: ServerProcess | undefined;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    if (!postgres.url) throw new Error(`PostgreSQL is required on CI: ${postgres.reason}`);
    database = await createSpecDatabase(postgres.url);
    const token = `sbk_e2e_two_nodes_${Date.now().toString(36)}`;
    const env = { SWITCHBOARD_DATABASE_URL: database.url, SWITCHBOARD_DEMO: 'off' };
    // One after the other: the first creates the shared token, the second finds it.
    serverA = await ServerProcess.start({ token, env });
    serverB = await ServerProcess.start({ token, env });
  });
  test.afterAll(async () => {
    await serverB?.dispose();
    await serverA?.dispose();
    await database?.drop();
  });

  test('a publish through server A shows in the event list of a console on server B within a second', async ({ page, cpuLock }) => {
    // A measured test: nothing else runs meanwhile.
    await cpuLock.takeExclusive();
    const a = serverA!;
    const b = serverB!;
    expect((await a.rpc('health.check')).servers).toHaveLength(2);
    await signInContext(page, b);
    await page.goto(`${b.url}/events?event_name=survey.requested&live=1`);
    await expect(new EventsPage(page).noMatch).toBeVisible();
    // A heartbeat arrived: the console's socket is subscribed, so it hears of changes.
    await expect(new ConsoleShell(page).heartbeat).toContainText('Healthy');
    await watchFor(page, { row: '[data-testid="event-row"]', bar: '[data-testid="new-events"]' });

    // An empty list has nothing to move: the event appears as a row.
    const firstSentAt = Date.now();
    const first = await a.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-two-servers-1' } });
    const rowAfterMs = (await appearedAt(page, 'row')) - firstSentAt;
    await expect(new EventsPage(page).rows).toHaveCount(1);
    await expect(new EventsPage(page).rowCheckbox(new EventsPage(page).rows)).toHaveAccessibleName(`Select survey.requested ${first.event_id}`);

    // With rows loaded, live tail counts the next one in its bar; the rows stay put.
    const secondSentAt = Date.now();
    await a.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-two-servers-2' } });
    const barAfterMs = (await appearedAt(page, 'bar')) - secondSentAt;
    await expect(new EventsPage(page).newEventsBar).toHaveText(/1 new event\b/);
    await expect(new EventsPage(page).rows).toHaveCount(1);

    test.info().annotations.push({ type: 'latency', description: `row ${rowAfterMs} ms, live-tail bar ${barAfterMs} ms after the publish on server A` });
    expect(rowAfterMs).toBeLessThan(1000);
    expect(barAfterMs).toBeLessThan(1000);
  });
});
