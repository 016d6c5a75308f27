/**
 * runtime.incidents (each incident checked against its records through runtime.incident_logs), over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { waitForQuiet } from '../control-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(20, (s) => (server = s));

describe('runtime.incidents', () => {
  it('groups warn-and-above log records by (component, error_code)', async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 500 });
    expect(incidents.length).toBeGreaterThan(2);
    const keys = incidents.map((i: any) => `${i.component}|${i.error_code ?? ''}|${i.subscriber_id ?? ''}|${i.reason_code ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let i = 1; i < incidents.length; i++) expect(incidents[i - 1]!.last_seen >= incidents[i]!.last_seen).toBe(true);
    const rank = ['debug', 'info', 'warn', 'error', 'fatal'];
    for (const inc of incidents) {
      const { logs } = await ok(server, 'runtime.incident_logs', { incident_id: inc.incident_id, limit: 500 });
      expect(logs).toHaveLength(inc.count);
      expect(logs.every((l: any) => l.component === inc.component && l.error_code === inc.error_code)).toBe(true);
      expect(logs.slice(0, 5).map((l: any) => l.log_id)).toEqual(inc.sample_log_ids);
      expect(logs[0]!.message).toBe(inc.sample_message);
      expect(logs[0]!.ts).toBe(inc.last_seen);
      expect(logs.at(-1)!.ts).toBe(inc.first_seen);
      expect(inc.level).toBe(rank[Math.max(...logs.map((l: any) => rank.indexOf(l.level)))]);
      expect(rank.indexOf(inc.level)).toBeGreaterThanOrEqual(2);
      expect(inc.histogram).toHaveLength(24);
      expect(inc.histogram!.reduce((a: number, b: number) => a + b, 0)).toBe(inc.count);
    }
  });

  it('filters by component and mcp_only, sorts by count, pages with a cursor', async () => {
    const all = (await ok(server, 'runtime.incidents', { limit: 500 })).incidents;
    const mcp = (await ok(server, 'runtime.incidents', { mcp_only: true })).incidents;
    expect(mcp.length).toBeGreaterThan(0);
    expect(mcp.every((i: any) => i.component.startsWith('mcp.'))).toBe(true);
    expect(mcp).toHaveLength(all.filter((i: any) => i.component.startsWith('mcp.')).length);
    const component = all[0]!.component;
    const byComponent = (await ok(server, 'runtime.incidents', { component })).incidents;
    expect(byComponent.map((i: any) => i.incident_id).sort()).toEqual(all.filter((i: any) => i.component === component).map((i: any) => i.incident_id).sort());
    const byCount = (await walk(server, 'runtime.incidents', { sort: 'count', limit: 1 })).items;
    expect(byCount.map((i) => i.incident_id).sort()).toEqual(all.map((i: any) => i.incident_id).sort());
    for (let i = 1; i < byCount.length; i++) expect(byCount[i - 1]!.count >= byCount[i]!.count).toBe(true);
    const paged = await walk(server, 'runtime.incidents', { limit: 2 });
    expect(paged.items.map((i) => i.incident_id)).toEqual(all.map((i: any) => i.incident_id));
    const hist = (await ok(server, 'runtime.incidents', { histogram_buckets: 6, limit: 1 })).incidents[0];
    expect(hist!.histogram).toHaveLength(6);
    const first = await ok(server, 'runtime.incidents', { limit: 1 });
    expect((await errorOf(server, 'runtime.incidents', { limit: 1, mcp_only: true, cursor: first.next_cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorOf(server, 'runtime.incidents', { limit: 0 })).code).toBe('INVALID_PARAMS');
  });

  it('dead-letter incidents group by subscriber and reason too: one cause each, with its breakdown, a sample payload and its dead letters', async () => {
    // Refunds time out at the payments tool: pay-refund dead letters beside the demo's others.
    for (let i = 0; i < 12; i++) {
      await ok(server, 'event.publish', { event_name: 'refund.approved', payload: { ticket_id: `T-API-${i}`, order_id: `ORD-API-${i}`, amount: 10 + i, currency: 'EUR' } });
    }
    await waitForQuiet(server);
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 500 });
    const dead = incidents.filter((i) => i.component === 'dispatcher' && i.error_code === 'DEAD_LETTER');
    // Two subscribers dead-letter for their own reasons: one incident each, not one for both.
    expect(dead.length).toBeGreaterThan(1);
    expect(new Set(dead.map((i) => `${i.subscriber_id}|${i.reason_code}`)).size).toBe(dead.length);
    for (const inc of dead) {
      expect(inc.subscriber_id).toBeTruthy();
      expect(inc.reason_code).toBeTruthy();
      expect(inc.tool_server).toBeUndefined();
      // The id names the cause as its third element.
      expect(JSON.parse(Buffer.from(inc.incident_id.slice(4), 'base64url').toString())).toEqual(['dispatcher', 'DEAD_LETTER', JSON.stringify([inc.subscriber_id, inc.reason_code])]);
      const detail = await ok(server, 'runtime.incident_logs', { incident_id: inc.incident_id, limit: 500 });
      expect(detail.logs).toHaveLength(inc.count);
      // Every record's dead letter has this incident's subscriber and reason.
      const ids: string[] = [];
      for (const log of detail.logs) {
        const { events } = await ok(server, 'event.list', { filter: { event_id: log.event_id! } });
        const dl = events[0]!.dead_letters.find((d) => d.dead_letter_id === log.dead_letter_id)!;
        expect([dl.subscriber_id, dl.reason_code]).toEqual([inc.subscriber_id, inc.reason_code]);
        ids.push(dl.dead_letter_id);
      }
      expect(detail.breakdown!.subscribers).toEqual([{ value: inc.subscriber_id, count: inc.count }]);
      expect(detail.breakdown!.reasons).toEqual([{ value: inc.reason_code, count: inc.count }]);
      expect(detail.breakdown!.event_names.reduce((n, e) => n + e.count, 0)).toBe(inc.count);
      const latest = detail.logs[0]!;
      const { events } = await ok(server, 'event.list', { filter: { event_id: latest.event_id! } });
      expect(detail.sample_payload).toEqual({ event_id: latest.event_id, event_name: events[0]!.event_name, payload: events[0]!.payload });
      expect(detail.dead_letters).toMatchObject({ total: ids.length, redriven: 0, delivered: 0 });
      expect([...detail.dead_letters!.redrivable_ids!].sort()).toEqual([...ids].sort());
      // Exactly those are what a redrive of them selects.
      const plan = (await ok(server, 'event.redrive', { dry_run: true, dead_letter_ids: detail.dead_letters!.redrivable_ids! })).plan;
      expect(plan.to_send).toBe(ids.length);
      expect(plan.by_subscriber).toEqual([{ subscriber_id: inc.subscriber_id, count: ids.length }]);
    }
    // Other incidents keep their two-element ids and have no cause.
    for (const inc of incidents.filter((i) => i.error_code !== 'DEAD_LETTER')) {
      expect(inc.subscriber_id).toBeUndefined();
      expect(JSON.parse(Buffer.from(inc.incident_id.slice(4), 'base64url').toString())).toEqual([inc.component, inc.error_code ?? null]);
      expect(inc.tool_server).toBe(inc.component.startsWith('mcp.') ? inc.component : undefined);
    }
  });

  it('a tool server incident breaks down by subscriber and event through the deliveries its records name', async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { mcp_only: true, limit: 500 });
    const inc = incidents.find((i) => i.tool_server === 'mcp.payments')!;
    expect(inc).toBeDefined();
    const detail = await ok(server, 'runtime.incident_logs', { incident_id: inc.incident_id, limit: 500 });
    const named = detail.logs.filter((l) => l.delivery_id).length;
    expect(named).toBeGreaterThan(0);
    expect(detail.breakdown!.subscribers.reduce((n, e) => n + e.count, 0)).toBe(named);
    expect(detail.breakdown!.subscribers.map((e) => e.value)).toContain('pay-refund');
    expect(detail.sample_payload?.event_name).toBe(detail.breakdown!.event_names.length > 0 ? detail.sample_payload?.event_name : undefined);
  });

});
