/**
 * runtime.incident_logs: the log records of one incident, newest first, paged with a cursor, over HTTP
 * against records the real runtime produced (demo tickets through the support-desk bundle). How
 * runtime.incidents groups the records is in runtime.incidents.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(20, (s) => (server = s));

describe('runtime.incident_logs', () => {
  it("pages an incident's records newest first: every page together is the incident's count, each record once", async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 500 });
    const incident = [...incidents].sort((a, b) => b.count - a.count)[0]!;
    expect(incident.count).toBeGreaterThan(1);
    const { items, pages } = await walk(server, 'runtime.incident_logs', { incident_id: incident.incident_id, limit: 1 });
    expect(pages).toBeGreaterThanOrEqual(incident.count);
    expect(items).toHaveLength(incident.count);
    expect(new Set(items.map((l) => l.log_id)).size).toBe(items.length);
    for (let i = 1; i < items.length; i++) expect(items[i - 1]!.ts >= items[i]!.ts).toBe(true);
    expect(items.every((l) => l.component === incident.component && l.error_code === incident.error_code)).toBe(true);
  });

  it('refuses a cursor it did not hand out with INVALID_CURSOR', async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 1 });
    const err = await errorOf(server, 'runtime.incident_logs', { incident_id: incidents[0]!.incident_id, cursor: 'not-a-cursor' });
    expect(err.code).toBe('INVALID_CURSOR');
  });

  it('answers NOT_FOUND for an unknown incident', async () => {
    for (const id of ['inc_nope', 'nothing', `inc_${Buffer.from(JSON.stringify(['no.such.component', 'X'])).toString('base64url')}`]) {
      const err = await errorOf(server, 'runtime.incident_logs', { incident_id: id });
      expect(err.code).toBe('NOT_FOUND');
      expect(err.details).toEqual({ resource: 'incident', id });
    }
  });
});
