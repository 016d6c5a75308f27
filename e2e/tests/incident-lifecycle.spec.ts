/**
 * Triage that shrinks: an operator acknowledges an incident (it stays in the default view, open
 * and acknowledged: acknowledged is not done), resolves it, sees it leave the default view, finds
 * it under Resolved, and sees it come back as regressed when it occurs again, with the whole
 * story in its activity.
 */
import { IncidentsPage } from '../pages/incidents-page';
import { ServerProcess } from '../server-process';
import { ownDemoServer, publishRefunds } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

test.describe('incident lifecycle', () => {
  let own: ServerProcess;
  ownDemoServer(async (server) => {
    own = server;
    await publishRefunds(own, 'LC', 20);
  });

  test('acknowledge and resolve an incident, see it leave the default view, then regress', async ({ page }) => {
    const { incidents } = await own.rpc('runtime.incidents', { component: 'mcp.payments', limit: 50 });
    const target = incidents.find((i) => i.level === 'error')!;
    expect(target, 'an error incident of mcp.payments').toBeTruthy();

    await signInContext(page, own);
    const view = new IncidentsPage(page);
    await page.goto(`${own.url}/incidents?component=mcp.payments`);
    const row = view.rows.filter({ hasText: target.error_code! });
    await expect(row).toHaveCount(1);
    await expect(view.stateOf(row)).toHaveText('open');
    await view.open(target.incident_id);
    await view.note.fill('payments provider degraded; vendor ticket 4411');
    await view.acknowledge.click();
    // The default view shows open and acknowledged incidents: an acknowledged one stays in it,
    // and its detail stays open with the new state and the note in its activity.
    await expect(view.stateOf(row)).toHaveText('acknowledged');
    await expect(view.stateNow).toContainText('acknowledged');
    await expect(view.activity).toContainText('vendor ticket 4411');
    await view.stateFilter.selectOption('acknowledged');
    await expect(view.stateOf(view.rows.filter({ hasText: target.error_code! }))).toHaveText('acknowledged');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '80-incident-acknowledged');

    await view.stateFilter.selectOption('active');
    await view.open(target.incident_id);
    await view.resolve.click();
    await expect(view.rows.filter({ hasText: target.error_code! })).toHaveCount(0);
    // The panel keeps the incident's summary though the list no longer has it.
    await expect(view.summary).toContainText(target.component);
    await view.stateFilter.selectOption('resolved');
    await expect(page).toHaveURL(/state=resolved/);
    await expect(view.stateOf(view.rows.filter({ hasText: target.error_code! }))).toHaveText('resolved');
    await shotAtBothWidths(page, '81-incident-resolved');

    // It occurs again: new refunds fail at the payments tool the same way.
    await expect
      .poll(async () => {
        await publishRefunds(own, `RG${Date.now()}`, 10);
        const { incidents: now } = await own.rpc('runtime.incidents', { component: 'mcp.payments', states: ['regressed'], limit: 50 });
        return now.some((i) => i.incident_id === target.incident_id);
      }, { message: 'the incident to regress', timeout: 90_000 })
      .toBe(true);
    await page.goto(`${own.url}/incidents?component=mcp.payments&selected=${encodeURIComponent(target.incident_id)}`);
    const back = view.rows.filter({ hasText: target.error_code! });
    await expect(view.stateOf(back)).toHaveText('regressed');
    const activity = view.activity;
    await expect(view.activityEntries()).toHaveCount(3);
    await expect(view.activityEntries().first()).toContainText('regressed');
    await expect(activity).toContainText('resolved');
    await expect(activity).toContainText('acknowledged');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '82-incident-regressed');
  });
});
