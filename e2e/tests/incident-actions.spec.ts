/**
 * The incident is where the work starts (issue 36): the operator opens a dead-letter incident of
 * one cause, sees what it is made of (subscriber, reason, event, a sample payload), follows the
 * payments incident to its tool server and turns its faults off, then redrives exactly the
 * incident's dead letters from its own panel and sees its recovery callout update without a
 * reload. Then the same triage by keyboard, and the table on a phone.
 */
import { RecoveryDialog, ToolServers } from '../pages/recovery-page';
import { IncidentsPage } from '../pages/incidents-page';
import { ServerProcess } from '../server-process';
import { ownDemoServer, publishRefunds } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

test.describe('act from the incident', () => {
  let own: ServerProcess;
  ownDemoServer(async (server) => {
    own = server;
    // Refunds time out at the payments tool: pay-refund dead letters of one cause.
    await publishRefunds(own, 'ACT', 12);
  });

  test('fix an incident from its own panel: tool server faults off, redrive pre-scoped, callout updates', async ({ page }) => {
    test.setTimeout(180_000);
    const { incidents } = await own.rpc('runtime.incidents', { component: 'dispatcher', limit: 50 });
    const dead = incidents.filter((i) => i.error_code === 'DEAD_LETTER');
    const target = dead.find((i) => i.subscriber_id === 'pay-refund')!;
    expect(target, 'a pay-refund dead-letter incident').toBeTruthy();
    // One cause per incident: every dead-letter incident names its own subscriber and reason.
    expect(new Set(dead.map((i) => `${i.subscriber_id}|${i.reason_code}`)).size).toBe(dead.length);
    const before = await own.rpc('runtime.incident_logs', { incident_id: target.incident_id });
    const ids = before.dead_letters!.redrivable_ids!;
    expect(ids.length).toBeGreaterThan(0);

    await signInContext(page, own);
    const view = new IncidentsPage(page);
    // The payments tool's incident links to its row on the Runtime page, with the fault switch.
    const { incidents: mcp } = await own.rpc('runtime.incidents', { component: 'mcp.payments', limit: 50 });
    await page.goto(`${own.url}/incidents?component=mcp.payments&selected=${encodeURIComponent(mcp[0]!.incident_id)}`);
    await view.toolServerLink.click();
    await expect(page).toHaveURL(/\/runtime\?tool_server=mcp\.payments/);
    const tools = new ToolServers(page);
    await expect(tools.row('mcp.payments')).toHaveAttribute('aria-current', 'true');
    await tools.toggle('mcp.payments').click();
    await expect(tools.toggle('mcp.payments')).toHaveText('Turn faults on');

    await page.goto(`${own.url}/incidents`);
    await view.open(target.incident_id);
    await expect(view.detail).toBeVisible();
    await expect(view.summary).toContainText('pay-refund');
    await expect(view.summary).toContainText(target.reason_code!);
    await expect(view.breakdown).toContainText('By subscriber');
    await expect(view.breakdown).toContainText('refund.approved');
    // The sample payload is collapsed until asked for, and rendered as text.
    await expect(view.samplePayload).not.toHaveAttribute('open');
    await view.samplePayloadToggle().click();
    await expect(view.samplePayload).toContainText('ORD-ACT-');
    await expect(view.recovery).toHaveText(`${ids.length} dead letter${ids.length === 1 ? '' : 's'}: 0 redriven, 0 of those delivered.`);
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '90-incident-panel', { scrollTo: view.detail });

    // The page is not reloaded from here on: a marker set now must survive.
    await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
    await view.redrive.click();
    const dialog = new RecoveryDialog(page);
    await expect(dialog.toSend).toHaveText(String(ids.length));
    await expect(dialog.plan).toContainText('pay-refund');
    await expect(dialog.root).toContainText('of this incident');
    await dialog.rate.fill('20');
    if (ids.length > 25) await dialog.confirm.fill(String(ids.length));
    await shotAtBothWidths(page, '91-incident-redrive-estimate');
    await dialog.apply.click();
    await expect(dialog.progress).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
    await expect(dialog.outcomes).toContainText(`${ids.length} delivered`, { timeout: 30_000 });
    // The callout behind the dialog follows the redrive live, not on the next 30 s poll.
    await expect(view.recovery).toHaveText(`All ${ids.length} dead letter${ids.length === 1 ? '' : 's'} of this incident were redriven and delivered.`, { timeout: 10_000 });
    await dialog.close.click();
    await expect(view.recovery).toHaveText(`All ${ids.length} dead letter${ids.length === 1 ? '' : 's'} of this incident were redriven and delivered.`);
    await expect(view.redrive).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    // Exactly the incident's dead letters were redriven.
    const after = await own.rpc('runtime.incident_logs', { incident_id: target.incident_id });
    expect(after.dead_letters).toMatchObject({ total: ids.length, redriven: ids.length, delivered: ids.length });
    await shotAtBothWidths(page, '92-incident-recovered', { scrollTo: view.detail });
  });

  test('keyboard: j/k move, Enter opens, a acknowledges (it stays listed), e resolves; focus stays in the panel and returns to the row', async ({ page }) => {
    await signInContext(page, own);
    const view = new IncidentsPage(page);
    await page.goto(`${own.url}/incidents`);
    await expect(view.rows.first()).toBeVisible();
    const open = await own.rpc('runtime.incidents', { states: ['open', 'acknowledged'], sort: 'severity', limit: 50 });
    const first = open.incidents[0]!.incident_id;
    const second = open.incidents[1]!.incident_id;
    await view.pressShortcut('j');
    await expect(view.rowLink(first)).toBeFocused();
    await page.keyboard.press('j');
    await expect(view.rowLink(second)).toBeFocused();
    await page.keyboard.press('k');
    await expect(view.rowLink(first)).toBeFocused();
    // Pick an open one to work on.
    const target = open.incidents.find((i) => i.state === 'open' && !i.regressed)!;
    await view.rowLink(target.incident_id).focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`selected=${encodeURIComponent(target.incident_id)}`));
    await expect(view.detail).toBeVisible();

    await page.keyboard.press('a');
    await expect(view.stateNow).toContainText('acknowledged');
    await expect(view.stateNow).toBeFocused();
    // Acknowledged is not done: it stays in the default view, and the panel keeps its summary.
    await expect(view.stateOf(view.row(target.incident_id))).toHaveText('acknowledged');
    await expect(view.summary).toContainText(target.component);

    await page.keyboard.press('Escape');
    await expect(view.detail).toHaveCount(0);
    await expect(view.rowLink(target.incident_id)).toBeFocused();

    await page.keyboard.press('Enter');
    await expect(view.detail).toBeVisible();
    await page.keyboard.press('e');
    await expect(view.stateNow).toContainText('resolved');
    await expect(view.stateNow).toBeFocused();
    // Resolved leaves the default view; the panel still shows what it was.
    await expect(view.row(target.incident_id)).toHaveCount(0);
    await expect(view.summary).toContainText(target.component);
    await expect(view.activity).toContainText('resolved');
  });

  test('on a phone every incident row reads apart, and neither width scrolls sideways', async ({ page }) => {
    await signInContext(page, own);
    const view = new IncidentsPage(page);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${own.url}/incidents?state=all`);
      await expect(view.rows.first()).toBeVisible();
      const texts = (await view.rows.allInnerTexts()).map((t) => t.replace(/\d+ (sec|min)\.? ago|just now/g, '').replace(/\s+/g, ' ').trim());
      expect(new Set(texts).size, texts.join('\n')).toBe(texts.length);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const inner = await view.tableScroll.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(inner).toBeLessThanOrEqual(0);
    }
    await shotAtBothWidths(page, '93-incidents-table');
  });
});
