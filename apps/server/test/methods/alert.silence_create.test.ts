/** alert.silence_create: silences a rule or an incident until a time; alert.silence_end and alert.silences show it ended. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { inAnHour, opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.silence_create', () => {
  it('silences a rule until a time, lists it on the rule, and ends it once', async () => {
    const webhook = await opsWebhook(server);
    const { rule } = await ok(server, 'alert.rule_create', { name: 'dead servers', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] });
    await fails(server, 'alert.silence_create', { rule_id: rule.id, until: new Date(Date.now() - 1000).toISOString(), reason: 'past' }, 'INVALID_PARAMS');
    await fails(server, 'alert.silence_create', { rule_id: 'alr_nope', until: inAnHour(), reason: 'no rule' }, 'NOT_FOUND');
    await fails(server, 'alert.silence_create', { incident_id: 'inc_nope', until: inAnHour(), reason: 'no incident' }, 'NOT_FOUND');
    await fails(server, 'alert.silence_create', { until: inAnHour(), reason: 'neither' }, 'INVALID_PARAMS');
    const until = inAnHour();
    const { silence } = await ok(server, 'alert.silence_create', { rule_id: rule.id, until, reason: 'maintenance window' });
    expect(silence).toMatchObject({ rule_id: rule.id, until, reason: 'maintenance window', active: true });
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)!.silenced_until).toBe(until);
    const ended = await ok(server, 'alert.silence_end', { silence_id: silence.id });
    expect(ended).toMatchObject({ already_ended: false, silence: { id: silence.id, active: false, ended_at: expect.any(String) } });
    expect((await ok(server, 'alert.silence_end', { silence_id: silence.id })).already_ended).toBe(true);
    expect((await ok(server, 'alert.silences', {})).items.map((s) => s.id)).not.toContain(silence.id);
    expect((await ok(server, 'alert.silences', { include_ended: true })).items.map((s) => s.id)).toContain(silence.id);
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)!.silenced_until).toBeUndefined();
    const audit = await ok(server, 'audit.list', { method: 'alert.silence_create', limit: 10 });
    expect(audit.items.find((r) => r.outcome === 'ok')!.target_ids).toContain(silence.id);
  });
});
