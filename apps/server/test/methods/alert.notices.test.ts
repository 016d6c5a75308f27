/** alert.notices: the notice history newest first, paged with a cursor bound to the filter. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.notices', () => {
  it('pages the history newest first with a cursor bound to the filter', async () => {
    const webhook = await opsWebhook(server);
    for (let i = 0; i < 3; i++) await ok(server, 'alert.test', { destination_id: webhook.id });
    const first = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 2, cursor: first.next_cursor! });
    const all = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 100 });
    expect([...first.items, ...second.items].map((n) => n.id)).toEqual(all.items.slice(0, 4).map((n) => n.id));
    await fails(server, 'alert.notices', { limit: 2, cursor: first.next_cursor! }, 'INVALID_CURSOR');
  });
});
