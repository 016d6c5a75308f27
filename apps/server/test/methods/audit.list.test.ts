/** audit.list: the audit trail newest first, filtered by method, target and time, paged with cursors bound to the filter. */
import { describe, expect, it } from 'vitest';
import type { Result } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

type AuditItem = Result<'audit.list'>['items'][number];

let server: TestServer;
withControlServer((s) => {
  server = s;
});

async function records(server: TestServer, filter: Record<string, unknown> = {}): Promise<AuditItem[]> {
  return (await ok(server, 'audit.list', { limit: 500, ...filter })).items;
}

describe('audit.list', () => {
  it('pages newest first with cursors bound to the filter, and filters by target id', async () => {
    const published = [];
    for (let i = 0; i < 7; i++) published.push(await ok(server, 'event.publish', { event_name: 'tick', payload: { n: i } }));
    await ok(server, 'runtime.pause', { reason: 'paging' });
    await ok(server, 'runtime.resume');
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok(server, 'audit.list', { method: 'event.publish', limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((r) => r.seq));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    const firstPage = await ok(server, 'audit.list', { method: 'event.publish', limit: 3 });
    await fails(server, 'audit.list', { method: 'runtime.pause', cursor: firstPage.next_cursor }, 'INVALID_CURSOR');
    const byTarget = await records(server, { target_id: published[3]!.event_id });
    expect(byTarget.map((r) => r.method)).toEqual(['event.publish']);
    const since = byTarget[0]!.at;
    expect((await records(server, { since })).map((r) => r.method)).toEqual(expect.arrayContaining(['runtime.resume', 'runtime.pause', 'event.publish']));
    expect(await records(server, { until: '2000-01-01T00:00:00Z' })).toEqual([]);
  });

  it('refuses a filter outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'audit.list', { limit: 0 }, 'INVALID_PARAMS');
  });
});
