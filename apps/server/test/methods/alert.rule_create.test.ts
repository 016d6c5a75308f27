/** alert.rule_create (and its rule read back, updated and deleted): triggers, destinations and their validation. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.rule_create', () => {
  it('creates, lists, updates and deletes; unknown destinations are NOT_FOUND', async () => {
    const webhook = await opsWebhook(server);
    const missing = await fails(server, 'alert.rule_create', { name: 'nowhere', when: { trigger: 'server.dead' }, destination_ids: ['dst_nope'] }, 'NOT_FOUND');
    expect(missing.data.details).toMatchObject({ resource: 'destination', id: 'dst_nope' });
    await fails(server, 'alert.rule_create', { name: 'bad escalation', when: { trigger: 'server.dead' }, destination_ids: [webhook.id], escalation_destination_ids: [webhook.id] }, 'INVALID_PARAMS');
    await fails(server, 'alert.rule_create', { name: 'bad trigger', when: { trigger: 'incident.occurrences', threshold: 0, window_s: 60 }, destination_ids: [webhook.id] } as never, 'INVALID_PARAMS');

    const { rule } = await ok(server, 'alert.rule_create', { name: 'opened', when: { trigger: 'incident.opened', min_level: 'error' }, destination_ids: [webhook.id] });
    expect(rule).toMatchObject({ name: 'opened', when: { trigger: 'incident.opened', min_level: 'error' }, destination_ids: [webhook.id], escalation_destination_ids: [], enabled: true, source: 'api' });
    await fails(server, 'alert.rule_create', { name: 'opened', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] }, 'INVALID_PARAMS');
    const updated = await ok(server, 'alert.rule_update', { rule_id: rule.id, enabled: false, when: { trigger: 'incident.regressed' } });
    expect(updated.rule).toMatchObject({ id: rule.id, enabled: false, when: { trigger: 'incident.regressed' }, destination_ids: [webhook.id] });
    await fails(server, 'alert.rule_update', { rule_id: rule.id, destination_ids: ['dst_nope'] }, 'NOT_FOUND');
    await fails(server, 'alert.rule_update', { rule_id: 'alr_nope', enabled: true }, 'NOT_FOUND');
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)).toMatchObject({ enabled: false });
    await ok(server, 'alert.rule_delete', { rule_id: rule.id });
    await fails(server, 'alert.rule_delete', { rule_id: rule.id }, 'NOT_FOUND');
  });
});
