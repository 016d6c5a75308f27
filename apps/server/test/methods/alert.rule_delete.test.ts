/** alert.rule_delete: removes a rule once; its destinations are free to delete afterwards. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.rule_delete', () => {
  it('deletes a rule: alert.rules no longer lists it and its destination is no longer in use', async () => {
    const webhook = await opsWebhook(server);
    const { rule } = await ok(server, 'alert.rule_create', { name: 'short-lived', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] });
    await fails(server, 'alert.destination_delete', { destination_id: webhook.id }, 'DESTINATION_IN_USE');
    await ok(server, 'alert.rule_delete', { rule_id: rule.id });
    expect((await ok(server, 'alert.rules', {})).items.map((r) => r.id)).not.toContain(rule.id);
    expect(await ok(server, 'alert.destination_delete', { destination_id: webhook.id })).toEqual({ destination_id: webhook.id, deleted: true });
  });

  it('NOT_FOUND for a rule that does not exist', async () => {
    await fails(server, 'alert.rule_delete', { rule_id: 'alr_nope' }, 'NOT_FOUND');
  });
});
