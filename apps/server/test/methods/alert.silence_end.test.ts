/** alert.silence_end: ends a silence once; the rule it silenced notifies again. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { inAnHour, opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.silence_end', () => {
  it('ends a silence: the rule is no longer silenced; ending it again answers already_ended', async () => {
    const webhook = await opsWebhook(server);
    const { rule } = await ok(server, 'alert.rule_create', { name: 'paused alerts', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] });
    const { silence } = await ok(server, 'alert.silence_create', { rule_id: rule.id, until: inAnHour(), reason: 'deploy' });
    const ended = await ok(server, 'alert.silence_end', { silence_id: silence.id });
    expect(ended).toMatchObject({ already_ended: false, silence: { id: silence.id, active: false, ended_at: expect.any(String) } });
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)!.silenced_until).toBeUndefined();
    expect((await ok(server, 'alert.silence_end', { silence_id: silence.id })).already_ended).toBe(true);
  });

  it('NOT_FOUND for a silence that does not exist', async () => {
    await fails(server, 'alert.silence_end', { silence_id: 'sil_nope' }, 'NOT_FOUND');
  });
});
