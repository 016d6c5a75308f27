/**
 * Recovering from a failing provider, as an operator would: the payments tool times out and its
 * dead letters pile up; the operator turns the tool's faults off on the Runtime page, redrives the
 * dead letters from Dead letters (estimate, rate, typed confirmation), watches the progress to
 * completion, sees the new deliveries delivered and the dead letters' redrive history, and the
 * payments incident stops growing.
 */
import { EventsPage } from '../pages/events-page';
import { IncidentsPage } from '../pages/incidents-page';
import { OperationsSection, RecoveryDialog, ToolServers } from '../pages/recovery-page';
import { ServerProcess } from '../server-process';
import { ownDemoServer, publishRefunds } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

/** Occurrences of mcp.payments incidents (errors and retries) over the last day. */
async function paymentIncidents(server: ServerProcess): Promise<number> {
  const { incidents } = await server.rpc('runtime.incidents', { component: 'mcp.payments', limit: 500 });
  return incidents.reduce((n, i) => n + i.count, 0);
}

test.describe('redrive after fixing the failing tool', () => {
  let own: ServerProcess;
  ownDemoServer(async (server) => {
    own = server;
    // Payments faults are deterministic per call: these refunds leave a fixed set of dead letters.
    await publishRefunds(own, 'E2E', 40);
  });

  test('turn faults off, redrive from Dead letters, watch it complete, see the incident stop growing', async ({ page }) => {
    // A long scenario (a redrive at 4/s, ten screenshots, two axe scans), slow on a busy 2-core CI.
    test.setTimeout(240_000);
    const before = await own.rpc('event.redrive', { dry_run: true, filter: { subscriber_id: 'pay-refund' } });
    expect(before.plan.to_send).toBeGreaterThan(0);
    const toSend = before.plan.to_send;

    await signInContext(page, own);
    await page.goto(`${own.url}/runtime`);
    const tools = new ToolServers(page);
    await expect(tools.row('mcp.payments')).toContainText('on');
    await tools.toggle('mcp.payments').click();
    await expect(tools.row('mcp.payments')).toContainText('off');
    await expect(tools.toggle('mcp.payments')).toHaveText('Turn faults on');
    await shotAtBothWidths(page, '70-tool-servers-fixed');

    await page.goto(`${own.url}/dead-letters?subscriber_id=pay-refund&redriven=0`);
    await expect(new EventsPage(page).rows.first()).toBeVisible();
    await new EventsPage(page).openRecovery.click();
    const dialog = new RecoveryDialog(page);
    await expect(dialog.toSend).toHaveText(String(toSend));
    await expect(dialog.plan).toContainText('pay-refund');
    await dialog.rate.fill('4');
    if (toSend > 25) await dialog.confirm.fill(String(toSend));
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '71-redrive-estimate');
    const incidentsBefore = await paymentIncidents(own);

    await dialog.apply.click();
    await expect(dialog.progress).toBeVisible();
    await shotAtBothWidths(page, '72-redrive-progress');
    // Progress to completion, live: every dead letter sent and its new delivery delivered.
    await expect(dialog.progress).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
    await expect(dialog.sent).toHaveText(`${toSend} of ${toSend}`);
    await expect(dialog.outcomes).toContainText(`${toSend} delivered`, { timeout: 30_000 });
    await expect(dialog.outcomes).toContainText('0 dead-lettered again');
    await shotAtBothWidths(page, '73-redrive-done');
    await dialog.close.click();

    // The dead letters say they were redriven, and link to the new attempt's operation.
    await page.goto(`${own.url}/dead-letters?subscriber_id=pay-refund&redriven=0`);
    await expect(new EventsPage(page).noDeadLettersMatch()).toBeVisible();
    await page.goto(`${own.url}/dead-letters?subscriber_id=pay-refund&redriven=1`);
    // The list marks them too, not only the card.
    const deadLetters = new EventsPage(page);
    await expect(deadLetters.redrivenMark(deadLetters.rows.first())).toHaveText('redriven');
    for (const row of await deadLetters.rows.all()) await expect(deadLetters.redrivenMark(row)).toBeVisible();
    await deadLetters.rows.first().click();
    const history = deadLetters.redriveHistory().first();
    await expect(history).toContainText('Redriven');
    await expect(history).toContainText('delivered');
    await shotAtBothWidths(page, '74-redrive-history');
    await deadLetters.operationLink(history).click();
    const operations = new OperationsSection(page);
    await expect(operations.rows.first()).toContainText('completed');
    await expect(operations.progress).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '75-operations');

    // The payments incidents say their dead letters were all redriven and delivered.
    const { incidents } = await own.rpc('runtime.incidents', { component: 'mcp.payments', limit: 50 });
    const withDeadLetters = [];
    for (const i of incidents) {
      const logs = await own.rpc('runtime.incident_logs', { incident_id: i.incident_id });
      if (logs.dead_letters) withDeadLetters.push({ id: i.incident_id, ...logs.dead_letters });
    }
    expect(withDeadLetters.length).toBeGreaterThan(0);
    await page.goto(`${own.url}/incidents?component=mcp.payments&selected=${encodeURIComponent(withDeadLetters[0]!.id)}`);
    await expect(new IncidentsPage(page).recovery).toHaveText(`All ${withDeadLetters[0]!.total} dead letter${withDeadLetters[0]!.total === 1 ? '' : 's'} of this incident were redriven and delivered.`);
    await shotAtBothWidths(page, '76-incident-recovered');

    // The incident stops growing: the same kind of traffic no longer fails at the payments tool.
    expect(await paymentIncidents(own)).toBe(incidentsBefore);
    await publishRefunds(own, 'AFTER', 20);
    expect(await paymentIncidents(own)).toBe(incidentsBefore);
    const after = await own.rpc('event.redrive', { dry_run: true, filter: { subscriber_id: 'pay-refund' } });
    expect(after.plan).toMatchObject({ to_send: 0, already_redriven: toSend });
  });
});
