/**
 * The Nodes panel on the Runtime page: every live server process on the store, the console's own
 * marked "this node". One server on SQLite; two servers sharing a PostgreSQL database for the
 * two-node view (skipped without PostgreSQL, except on CI where that is a failure).
 */
import { NodesPanel } from '../pages/runtime-page';
import { ConsoleShell } from '../pages/shell-page';
import { createSpecDatabase, testPostgres } from '../postgres-database';
import { ServerProcess } from '../server-process';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

const AGE = /^\d+\.\d s ago$/;

test.describe('nodes on one server', () => {
  let own: ServerProcess;
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    own = await ServerProcess.start({ env: { SWITCHBOARD_DEMO: 'off' } });
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('the Runtime page lists this server as "this node" with its pid, and its last seen age counts on', async ({ page }) => {
    const health = await own.rpc('health.check');
    const self = health.nodes.find((n) => n.self);
    expect(self, 'health.check names the answering node').toBeTruthy();

    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const nodes = new NodesPanel(page);
    await expect(nodes.rows).toHaveCount(1);
    await expect(nodes.summary).toContainText('1 live node');
    await expect(nodes.summary).toContainText('by the heartbeat');

    // The pid is the server process's own, not just what the API said.
    const row = nodes.row(own.pid!);
    await expect(row).toHaveAttribute('data-self', 'true');
    await expect(nodes.thisNode(row)).toHaveText('this node');
    const nodeId = nodes.nodeId(row);
    await expect(nodeId).toHaveText(self!.node_id);
    await expect(nodeId).toHaveAttribute('title', self!.node_id);
    await expect(row).toContainText(self!.host);
    await expect(row).toContainText(self!.version);
    await expect(nodes.inFlight(row)).toHaveText(/^\d+$/);

    // Live: the age moves between heartbeats without a reload.
    const lastSeen = nodes.lastSeen(row);
    await expect(lastSeen).toHaveText(AGE);
    const before = await lastSeen.innerText();
    await expect(lastSeen).not.toHaveText(before);
    await expect(lastSeen).toHaveText(AGE);

    // Keyboard: the truncated id takes focus and unfolds to its full text.
    await nodeId.focus();
    await expect(nodeId).toBeFocused();
    expect(await nodeId.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('normal');
    await nodeId.blur();

    expect(await seriousViolations(page)).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shotAtBothWidths(page, `nodes-one-${scheme}`, { scrollTo: nodes.root });
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: null });
  });

  test('the heartbeat details link to the nodes, by keyboard', async ({ page }) => {
    await signInContext(page, own);
    await page.goto(`${own.url}/incidents`);
    const shell = new ConsoleShell(page);
    const indicator = shell.heartbeat;
    await expect(indicator).toContainText('Healthy');
    await indicator.focus();
    const link = shell.heartbeatNodesLink;
    await expect(shell.heartbeatDetails).toContainText(/Nodes\s*1 live/);
    await shotAtBothWidths(page, 'nodes-heartbeat-details');
    await page.keyboard.press('Tab');
    await expect(link).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/runtime#nodes$/);
    const nodes = new NodesPanel(page);
    await expect(nodes.rows).toHaveCount(1);
    await expect(nodes.root).toBeInViewport();
    await expect(shell.heartbeatDetails).toBeHidden();
  });

  test('without heartbeats the panel reads health.check, and says when that fails', async ({ page }) => {
    // No heartbeat socket: every connection is closed at once, so the console keeps reconnecting.
    await page.routeWebSocket(/\/v1\/ws/, (ws) => ws.close());
    let failHealthCheck = true;
    await page.route('**/v1/rpc', (route) => (failHealthCheck && route.request().postData()?.includes('"health.check"') ? route.abort('connectionrefused') : route.fallback()));

    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const nodes = new NodesPanel(page);
    await expect(nodes.alert).toContainText('The server cannot be reached');
    await expect(nodes.tryAgain).toBeVisible();
    await expect(nodes.rows).toHaveCount(0);

    // The fallback keeps polling: once health.check answers, the nodes show by themselves.
    failHealthCheck = false;
    await expect(nodes.rows).toHaveCount(1);
    await expect(nodes.summary).toContainText('by health.check');
    await expect(nodes.thisNode(nodes.row(own.pid!))).toBeVisible();
    await expect(nodes.alert).toHaveCount(0);
  });
});

test('two servers on one PostgreSQL database: each console lists both nodes and marks its own', async ({ page }) => {
  test.setTimeout(150_000);
  const postgres = testPostgres();
  if (!postgres.url) {
    expect(process.env.CI, `CI must run the two-node check, but PostgreSQL is missing: ${postgres.reason}`).not.toBe('true');
    test.skip(true, `two-node check needs PostgreSQL (${postgres.reason}); set SWITCHBOARD_TEST_DATABASE_URL or install postgresql`);
    return;
  }
  const db = await createSpecDatabase(postgres.url);
  const servers: ServerProcess[] = [];
  try {
    const env = { SWITCHBOARD_DATABASE_URL: db.url, SWITCHBOARD_DEMO: 'off' };
    // One after the other: the first migrates the empty database and records the token.
    servers.push(await ServerProcess.start({ env }));
    servers.push(await ServerProcess.start({ env, token: servers[0]!.token }));
    const [first, second] = servers as [ServerProcess, ServerProcess];

    const nodes = new NodesPanel(page);
    for (const [own, other] of [
      [first, second],
      [second, first],
    ] as const) {
      await signInContext(page, own);
      await page.goto(`${own.url}/runtime`);
      await expect(nodes.rows).toHaveCount(2);
      await expect(nodes.summary).toContainText('2 live nodes');
      await expect(nodes.thisNode(nodes.row(own.pid!))).toBeVisible();
      await expect(nodes.row(other.pid!)).toHaveAttribute('data-self', 'false');
      await expect(nodes.thisNode(nodes.row(other.pid!))).toHaveCount(0);
      await expect(nodes.lastSeen(nodes.row(other.pid!))).toHaveText(AGE);
    }
    await expect(nodes.selfRow).toHaveCount(1);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shotAtBothWidths(page, `nodes-two-${scheme}`, { scrollTo: nodes.root });
    }
    await nodes.nodeId(nodes.selfRow).focus();
    await shotAtBothWidths(page, 'nodes-two-id-focused', { scrollTo: nodes.root });
    await page.emulateMedia({ colorScheme: null });

    // A node that stops leaves the list (the second's console is open: the first goes).
    await first.stop();
    await expect(nodes.rows).toHaveCount(1);
    await expect(nodes.thisNode(nodes.row(second.pid!))).toBeVisible();
  } finally {
    for (const s of servers) await s.dispose();
    await db.drop();
  }
});
