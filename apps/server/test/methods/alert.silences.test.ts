/** alert.silences: the silences on now, and with include_ended those that ended too. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { inAnHour, opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.silences', () => {
  it('lists active silences; an ended one only with include_ended', async () => {
    const webhook = await opsWebhook(server);
    const { rule } = await ok(server, 'alert.rule_create', { name: 'silenced', when: { trigger: 'server.dead' }, destination_ids: [webhook.id] });
    const { silence: kept } = await ok(server, 'alert.silence_create', { rule_id: rule.id, until: inAnHour(), reason: 'kept' });
    const { silence: ended } = await ok(server, 'alert.silence_create', { rule_id: rule.id, until: inAnHour(), reason: 'ended' });
    await ok(server, 'alert.silence_end', { silence_id: ended.id });
    expect((await ok(server, 'alert.silences', {})).items.map((s) => s.id)).toEqual([kept.id]);
    expect((await ok(server, 'alert.silences', { include_ended: true })).items.map((s) => s.id).sort()).toEqual([kept.id, ended.id].sort());
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'alert.silences', { include_ended: 'yes' }, 'INVALID_PARAMS');
  });
});
