import { expect, test } from '../fixtures';
import { AuditPage } from '../pages/audit-page';
import { EventsPage } from '../pages/events-page';
import { ExportMenu } from '../pages/export-menu';

test.describe('export', () => {
  test('downloads the events of the current filters as CSV and JSON Lines, and the export shows on the audit trail', async ({ signedIn: page, server }) => {
    // Events of one entity, so traffic from other tests cannot change what the filters match.
    const entity = `export-${Date.now().toString(36)}`;
    for (let i = 0; i < 3; i++) {
      await server.rpc('event.publish', { event_name: 'survey.requested', entity_id: entity, payload: { ticket_id: `T-export-${i}, "quoted"` } });
    }
    const listed = (await server.rpc('event.list', { filter: { entity_id: entity }, limit: 50 })).events;
    expect(listed).toHaveLength(3);

    const browser = new EventsPage(page);
    await browser.goto(`?entity_id=${entity}`);
    await expect(browser.rows).toHaveCount(3);
    const exporter = new ExportMenu(page);

    const lines = await exporter.download('JSON Lines');
    expect(lines.fileName).toMatch(/^switchboard-events-[0-9TZ-]+\.jsonl$/);
    const exported = lines.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event_id: string; entity_id: string; payload: unknown });
    expect(exported.map((e) => e.event_id)).toEqual(listed.map((e) => e.event_id));
    expect(exported.map((e) => e.payload)).toEqual(listed.map((e) => e.payload));

    const table = await exporter.download('CSV');
    expect(table.fileName).toMatch(/^switchboard-events-[0-9TZ-]+\.csv$/);
    const [header, ...rows] = table.text.trim().split('\n');
    expect(header).toMatch(/^event_id,event_name,created_at,source,entity_id,/);
    expect(rows.map((r) => r.split(',')[0])).toEqual(listed.map((e) => e.event_id));
    expect(rows.every((r) => r.includes(`,${entity},`))).toBe(true);

    // From the keyboard: the menu opens with Enter and Escape closes it.
    await exporter.toggle.focus();
    await page.keyboard.press('Enter');
    await expect(exporter.link('CSV')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(exporter.link('CSV')).toBeHidden();

    // Who took what out: both downloads are on the audit trail, with the filter they used.
    const audit = new AuditPage(page);
    await audit.goto('?method=export.events');
    await expect(audit.rows.first()).toContainText('export.events');
    const trail = await new ExportMenu(page).download('JSON Lines');
    expect(trail.fileName).toMatch(/^switchboard-audit-/);
    const records = trail.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { method: string; channel: string; params_summary: Record<string, unknown> });
    const ours = records.filter((r) => r.params_summary.entity_id === entity);
    expect(ours.map((r) => [r.method, r.channel, r.params_summary.format])).toEqual([
      ['export.events', 'console', 'csv'],
      ['export.events', 'console', 'jsonl'],
    ]);
  });

  test('Escape closes the menu even when pressed before the menu has heard it opened', async ({ signedIn: page }) => {
    const browser = new EventsPage(page);
    await browser.goto();
    const exporter = new ExportMenu(page);
    await expect(exporter.toggle).toBeVisible();
    // Opened and Escape pressed in one task: the element's toggle event has not run yet.
    await exporter.menu.evaluate((menu: HTMLDetailsElement) => {
      menu.querySelector('summary')!.click();
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    await expect(exporter.link('CSV')).toBeHidden();
    await expect(exporter.menu).not.toHaveAttribute('open');
  });
});
