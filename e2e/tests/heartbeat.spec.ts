import { ServerProcess } from '../server-process';
import { expect, signInContext, test } from '../fixtures';

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
    const indicator = page.getByTestId('heartbeat');
    await expect(indicator).toContainText('Healthy');

    // Details on focus: heartbeat age, round trip, ingress and bundle fingerprint.
    await indicator.focus();
    const details = page.getByRole('tooltip');
    await expect(details).toBeVisible();
    await expect(details).toContainText(/Last heartbeat\s*\d+ s ago/);
    await expect(details).toContainText(/Round trip\s*\d+ ms/);
    await expect(details).toContainText(/Ingress\s*open/);
    await expect(details).toContainText('sha256:');
    await indicator.blur();

    await own.stop();
    await expect(indicator).toContainText('Reconnecting', { timeout: 10_000 });
    await expect(page.getByTestId('stale-notice').first()).toBeVisible();

    await own.startProcess();
    await expect(indicator).toContainText('Healthy', { timeout: 20_000 });
    await expect(page.getByTestId('stale-notice')).toHaveCount(0);
  });
});
