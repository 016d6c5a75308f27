/**
 * runtime.incident_logs: the log records of one incident, newest first, over HTTP
 * against records the real runtime produced (demo tickets through the support-desk bundle). How
 * runtime.incidents groups the records is in runtime.incidents.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(20, (s) => (server = s));

describe('runtime.incident_logs', () => {
  it("reads an incident's records newest first, all of its count; limit keeps the newest", async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 500 });
    const incident = [...incidents].sort((a, b) => b.count - a.count)[0]!;
    expect(incident.count).toBeGreaterThan(3);
    const { logs } = await ok(server, 'runtime.incident_logs', { incident_id: incident.incident_id, limit: 500 });
    expect(logs).toHaveLength(incident.count);
    expect(new Set(logs.map((l) => l.log_id)).size).toBe(logs.length);
    for (let i = 1; i < logs.length; i++) expect(logs[i - 1]!.ts >= logs[i]!.ts).toBe(true);
    expect(logs.every((l) => l.component === incident.component && l.error_code === incident.error_code)).toBe(true);
    const newest = await ok(server, 'runtime.incident_logs', { incident_id: incident.incident_id, limit: 3 });
    expect(newest.logs.map((l) => l.log_id)).toEqual(logs.slice(0, 3).map((l) => l.log_id));
  });

  it('refuses params outside the contract (it does not page by cursor) with INVALID_PARAMS', async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 1 });
    const err = await errorOf(server, 'runtime.incident_logs', { incident_id: incidents[0]!.incident_id, cursor: 'not-a-cursor' });
    expect(err.code).toBe('INVALID_PARAMS');
  });

  it('answers NOT_FOUND for an unknown incident', async () => {
    for (const id of ['inc_nope', 'nothing', `inc_${Buffer.from(JSON.stringify(['no.such.component', 'X'])).toString('base64url')}`]) {
      const err = await errorOf(server, 'runtime.incident_logs', { incident_id: id });
      expect(err.code).toBe('NOT_FOUND');
      expect(err.details).toEqual({ resource: 'incident', id });
    }
  });
});
