/** alert.test: a test notice to one destination, pending in the notice history. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.test', () => {
  it('alert.test makes a pending notice in the history; resending one that did not fail is refused', async () => {
    const webhook = await opsWebhook(server);
    await fails(server, 'alert.test', { destination_id: 'dst_nope' }, 'NOT_FOUND');
    const { notice } = await ok(server, 'alert.test', { destination_id: webhook.id });
    expect(notice).toMatchObject({ destination_id: webhook.id, destination_name: 'ops webhook', kind: 'webhook', transition: 'test', subject_type: 'destination', status: 'pending', attempts: 0 });
    const history = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 10 });
    expect(history.items.map((n) => n.id)).toContain(notice.id);
    await fails(server, 'alert.notice_resend', { notice_id: 'ntc_nope' }, 'NOT_FOUND');
    const known = (await ok(server, 'alert.notices', { limit: 1 })).items[0]!;
    if (known.status !== 'failed') await fails(server, 'alert.notice_resend', { notice_id: known.id }, 'NOTICE_NOT_FAILED');
  });
});
