/** alert.destination_delete: deletes a destination no rule uses; one a rule uses is DESTINATION_IN_USE. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.destination_delete', () => {
  it('refuses a taken name, and deleting a destination a rule uses', async () => {
    await opsWebhook(server);
    await fails(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/other' }, 'INVALID_PARAMS');
    const { items } = await ok(server, 'alert.destinations', {});
    const webhook = items.find((d) => d.name === 'ops webhook')!;
    const { rule } = await ok(server, 'alert.rule_create', { name: 'resets', when: { trigger: 'reset.applied' }, destination_ids: [webhook.id] });
    const inUse = await fails(server, 'alert.destination_delete', { destination_id: webhook.id }, 'DESTINATION_IN_USE');
    expect(inUse.data.details).toMatchObject({ destination_id: webhook.id, rules: ['resets'] });
    await ok(server, 'alert.rule_delete', { rule_id: rule.id });
    const spare = await ok(server, 'alert.destination_create', { name: 'spare', kind: 'webhook', url: 'http://127.0.0.1:9/spare' });
    expect(await ok(server, 'alert.destination_delete', { destination_id: spare.destination.id })).toEqual({ destination_id: spare.destination.id, deleted: true });
    await fails(server, 'alert.destination_delete', { destination_id: spare.destination.id }, 'NOT_FOUND');
  });
});
