/** alert.rule_update: changes a rule's trigger, destinations or whether it is on; the rest stays. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.rule_update', () => {
  it('turns a rule off and changes its trigger, keeping its destinations; alert.rules shows the change', async () => {
    const webhook = await opsWebhook(server);
    const { rule } = await ok(server, 'alert.rule_create', { name: 'to update', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] });
    const { rule: updated } = await ok(server, 'alert.rule_update', { rule_id: rule.id, enabled: false, when: { trigger: 'reset.applied' } });
    expect(updated).toMatchObject({ id: rule.id, name: 'to update', enabled: false, when: { trigger: 'reset.applied' }, destination_ids: [webhook.id] });
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)).toEqual(updated);
  });

  it('NOT_FOUND for an unknown rule or destination, changing nothing', async () => {
    const webhook = await opsWebhook(server);
    const { rule } = await ok(server, 'alert.rule_create', { name: 'kept as is', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] });
    await fails(server, 'alert.rule_update', { rule_id: 'alr_nope', enabled: false }, 'NOT_FOUND');
    await fails(server, 'alert.rule_update', { rule_id: rule.id, destination_ids: ['dst_nope'] }, 'NOT_FOUND');
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)).toEqual(rule);
  });
});
