/**
 * The Servers panel on the Runtime page: every live server process on the store, the console's own
 * marked "this server". One server on SQLite; two servers sharing a PostgreSQL database for the
 * two-server view (skipped without PostgreSQL, except on CI where that is a failure).
 */
import { ServersPanel } from '../pages/runtime-page';
import { ConsoleShell } from '../pages/shell-page';
import { createSpecDatabase, testPostgres } from '../postgres-database';
import { ServerProcess } from '../server-process';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

const AGE = /^\d+\.\d s ago$/;

test.describe('the Servers panel with one server running', () => {
  let own: ServerProcess;
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    own = await ServerProcess.start({ env: { SWITCHBOARD_DEMO: 'off' } });
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('the Runtime page lists this server as "this server" with its pid, and its last seen age counts on', async ({ page }) => {
    const health = await own.rpc('health.check');
    const self = health.servers.find((n) => n.self);
    expect(self, 'health.check names the answering server').toBeTruthy();

    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const servers = new ServersPanel(page);
    await expect(servers.rows).toHaveCount(1);
    await expect(servers.summary).toContainText('1 live server');
    await expect(servers.summary).toContainText('by the heartbeat');

    // The pid is the server process's own, not just what the API said.
    const row = servers.row(own.pid!);
    await expect(row).toHaveAttribute('data-self', 'true');
    await expect(servers.thisServer(row)).toHaveText('this server');
    const serverId = servers.serverId(row);
    await expect(serverId).toHaveText(self!.server_id);
    await expect(serverId).toHaveAttribute('title', self!.server_id);
    await expect(row).toContainText(self!.host);
    await expect(row).toContainText(self!.version);
    await expect(servers.inFlight(row)).toHaveText(/^\d+$/);

    // Live: the age moves between heartbeats without a reload.
    const lastSeen = servers.lastSeen(row);
    await expect(lastSeen).toHaveText(AGE);
    const before = await lastSeen.innerText();
    await expect(lastSeen).not.toHaveText(before);
    await expect(lastSeen).toHaveText(AGE);

    // Keyboard: the truncated id takes focus and unfolds to its full text.
    await serverId.focus();
    await expect(serverId).toBeFocused();
    expect(await serverId.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('normal');
    await serverId.blur();

    expect(await seriousViolations(page)).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shotAtBothWidths(page, `servers-one-${scheme}`, { scrollTo: servers.root });
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: null });
  });

  test('the heartbeat details link to the servers, by keyboard', async ({ page }) => {
    await signInContext(page, own);
    await page.goto(`${own.url}/incidents`);
    const shell = new ConsoleShell(page);
    const indicator = shell.heartbeat;
    await expect(indicator).toContainText('Healthy');
    await indicator.focus();
    const link = shell.heartbeatNodesLink;
    await expect(shell.heartbeatDetails).toContainText(/Servers\s*1 live/);
    await shotAtBothWidths(page, 'servers-heartbeat-details');
    await page.keyboard.press('Tab');
    await expect(link).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/runtime#servers$/);
    const servers = new ServersPanel(page);
    await expect(servers.rows).toHaveCount(1);
    await expect(servers.root).toBeInViewport();
    await expect(shell.heartbeatDetails).toBeHidden();
  });

  test('without heartbeats the panel reads health.check, and says when that fails', async ({ page }) => {
    // No heartbeat socket: every connection is closed at once, so the console keeps reconnecting.
    await page.routeWebSocket(/\/v1\/ws/, (ws) => ws.close());
    let failHealthCheck = true;
    await page.route('**/v1/rpc', (route) => (failHealthCheck && route.request().postData()?.includes('"health.check"') ? route.abort('connectionrefused') : route.fallback()));

    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const servers = new ServersPanel(page);
    await expect(servers.alert).toContainText('The server cannot be reached');
    await expect(servers.tryAgain).toBeVisible();
    await expect(servers.rows).toHaveCount(0);

    // The fallback keeps polling: once health.check answers, the servers show by themselves.
    failHealthCheck = false;
    await expect(servers.rows).toHaveCount(1);
    await expect(servers.summary).toContainText('by health.check');
    await expect(servers.thisServer(servers.row(own.pid!))).toBeVisible();
    await expect(servers.alert).toHaveCount(0);
  });
});

test('two servers on one PostgreSQL database: each console lists both servers and marks its own', async ({ page }) => {
  test.setTimeout(150_000);
  const postgres = testPostgres();
  if (!postgres.url) {
    expect(process.env.CI, `CI must run the two-server check, but PostgreSQL is missing: ${postgres.reason}`).not.toBe('true');
    test.skip(true, `two-server check needs PostgreSQL (${postgres.reason}); set SWITCHBOARD_TEST_DATABASE_URL or install postgresql`);
    return;
  }
  const db = await createSpecDatabase(postgres.url);
  const processes: ServerProcess[] = [];
  try {
    const env = { SWITCHBOARD_DATABASE_URL: db.url, SWITCHBOARD_DEMO: 'off' };
    // One after the other: the first migrates the empty database and records the token.
    processes.push(await ServerProcess.start({ env }));
    processes.push(await ServerProcess.start({ env, token: processes[0]!.token }));
    const [first, second] = processes as [ServerProcess, ServerProcess];

    const servers = new ServersPanel(page);
    for (const [own, other] of [
      [first, second],
      [second, first],
    ] as const) {
      await signInContext(page, own);
      await page.goto(`${own.url}/runtime`);
      await expect(servers.rows).toHaveCount(2);
      await expect(servers.summary).toContainText('2 live servers');
      await expect(servers.thisServer(servers.row(own.pid!))).toBeVisible();
      await expect(servers.row(other.pid!)).toHaveAttribute('data-self', 'false');
      await expect(servers.thisServer(servers.row(other.pid!))).toHaveCount(0);
      await expect(servers.lastSeen(servers.row(other.pid!))).toHaveText(AGE);
    }
    await expect(servers.selfRow).toHaveCount(1);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shotAtBothWidths(page, `servers-two-${scheme}`, { scrollTo: servers.root });
    }
    await servers.serverId(servers.selfRow).focus();
    await shotAtBothWidths(page, 'servers-two-id-focused', { scrollTo: servers.root });
    await page.emulateMedia({ colorScheme: null });

    // A server that stops leaves the list (the second's console is open: the first goes).
    await first.stop();
    await expect(servers.rows).toHaveCount(1);
    await expect(servers.thisServer(servers.row(second.pid!))).toBeVisible();
  } finally {
    for (const s of processes) await s.dispose();
    await db.drop();
  }
});
