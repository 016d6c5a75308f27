/**
 * runtime.incidents and runtime.incident_logs, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(20, (s) => (server = s));

describe('runtime.incidents and runtime.incident_logs', () => {
  it('groups warn-and-above log records by (component, error_code)', async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 500 });
    expect(incidents.length).toBeGreaterThan(2);
    const keys = incidents.map((i: any) => `${i.component}|${i.error_code ?? ''}`);
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

  it('answers NOT_FOUND for an unknown incident', async () => {
    for (const id of ['inc_nope', 'nothing', `inc_${Buffer.from(JSON.stringify(['no.such.component', 'X'])).toString('base64url')}`]) {
      const err = await errorOf(server, 'runtime.incident_logs', { incident_id: id });
      expect(err.code).toBe('NOT_FOUND');
      expect(err.details).toEqual({ resource: 'incident', id });
    }
  });
});
