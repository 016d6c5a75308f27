import { ServerProcess } from '../server-process';
import { expect, signInContext, test } from '../fixtures';
import { RuntimePage } from '../pages/runtime-page';
import { ConsoleShell } from '../pages/shell-page';

test.describe('heartbeat', () => {
  let own: ServerProcess;
  test.beforeAll(async () => {
    // Its own server: this test stops and restarts it, which must not disturb the other tests.
    own = await ServerProcess.start({ env: { SWITCHBOARD_DEMO: 'off' } });
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('shows healthy, then reconnecting while the server is down, then healthy again by itself', async ({ page }) => {
    test.setTimeout(120_000);
    await signInContext(page, own);
    await page.goto(`${own.url}/incidents`);
    const indicator = new ConsoleShell(page).heartbeat;
    await expect(indicator).toContainText('Healthy');

    // Details on focus: heartbeat age, round trip, ingress and bundle fingerprint.
    await indicator.focus();
    const details = new ConsoleShell(page).heartbeatDetails;
    await expect(details).toBeVisible();
    await expect(details).toContainText(/Last heartbeat\s*\d+ s ago/);
    await expect(details).toContainText(/Round trip\s*\d+ ms/);
    await expect(details).toContainText(/Ingress\s*open/);
    await expect(details).toContainText('sha256:');
    await indicator.blur();

    // The last data stays on screen, marked stale once (not an error card per read, not a notice
    // per panel), while polled reads fail in the background.
    const shell = new ConsoleShell(page);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    await expect(runtime.ingressState).toContainText('open');
    let statusReadsFailed = 0;
    page.on('requestfailed', (request) => {
      if (request.postData()?.includes('"runtime.status"')) statusReadsFailed += 1;
    });
    await own.stop();
    await expect(indicator).toContainText('Reconnecting', { timeout: 10_000 });
    await expect(shell.staleNotices).toHaveCount(1);
    // The status poll (every 5 s) fails and so do its two retries, then the next poll fails too:
    // by then the screen has shown whatever the failed read makes it show.
    await expect.poll(() => statusReadsFailed, { message: 'a status read, its retries and the next poll to fail', timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    await expect(shell.staleNotices).toHaveCount(1);
    await expect(runtime.ingressState).toContainText('open');
    await expect(shell.alerts).toHaveCount(0);
    await shell.expectNoHorizontalScroll('reconnecting');

    await own.startProcess();
    await expect(indicator).toContainText('Healthy', { timeout: 20_000 });
    await expect(shell.staleNotices).toHaveCount(0);
  });
});
