/**
 * Retention on the Runtime page: a preview lists what a pass would remove, "Run now" asks first
 * and then removes exactly that, the last pass is shown; a role below admin sees why it cannot.
 */
import { RuntimePage } from '../pages/runtime-page';
import { ServerProcess } from '../server-process';
import { settled } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';
import { ageSettledRuns } from '../aged-history';
import { personWithToken } from '../people';

test.describe('retention on its own server', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 });
  let own: ServerProcess;
  test.beforeAll(async () => {
    own = await ServerProcess.start({ env: { SWITCHBOARD_DEMO: 'off' } });
  });
  test.afterAll(async () => {
    await own?.dispose();
  });

  test('preview, then run now: old settled runs are removed and the last pass shows it', async ({ page }) => {
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) runs.push((await own.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: `T-RET-${i}` } })).run_id);
    await settled(own);
    ageSettledRuns(own, runs.slice(0, 2), 60);

    await signInContext(page, own);
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    const retention = runtime.retention;
    await expect(retention.settings).toContainText('30 days');
    await expect(retention.lastRun).toHaveText('No pass has run yet.');
    await expect(retention.size).toHaveText(/\d (B|KB|MB|GB)/);

    await retention.previewButton.click();
    await expect(retention.outcomeSummary).toContainText('A pass now would remove');
    await expect(retention.count('runs')).toHaveText('2');
    expect((await own.rpc('run.get', { run_id: runs[0]! })).run.run_id).toBe(runs[0]);

    await retention.runNowButton.click();
    await expect(retention.root.getByRole('group', { name: 'Confirm a retention pass' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await retention.confirmButton.click();
    await expect(retention.outcomeSummary).toContainText('Removed');
    await expect(retention.count('runs')).toHaveText('2');
    await expect(retention.lastRun).toContainText('rows removed');
    await expect(retention.lastRun).toContainText('run by hand');
    await expect(own.rpc('run.get', { run_id: runs[0]! })).rejects.toThrow(/NOT_FOUND|not found/i);
    expect((await own.rpc('run.get', { run_id: runs[2]! })).run.run_id).toBe(runs[2]);
    await shotAtBothWidths(page, '41-runtime-retention', { scrollTo: retention.root });
  });

  test('a viewer sees the settings but not the buttons it may not use', async ({ browser }) => {
    const viewer = await personWithToken(own, 'viewer', 'retention');
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInContext(page, { url: own.url, token: viewer.secret });
    const runtime = new RuntimePage(page);
    await runtime.goto(own.url);
    await expect(runtime.retention.settings).toBeVisible();
    await expect(runtime.retention.previewButton).toBeDisabled();
    await expect(runtime.retention.runNowButton).toBeDisabled();
    await expect(runtime.retention.needsRole.first()).toContainText('admin');
    await context.close();
  });
});
