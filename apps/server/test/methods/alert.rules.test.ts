/** alert.rules: the API's rules and the bundle's, which are added at boot with source bundle. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.rules', () => {
  it('are added at boot with source bundle; a destination created under a name they use joins them and is in use', async () => {
    const bundleRules = (await ok(server, 'alert.rules', {})).items.filter((r) => r.source === 'bundle');
    expect(bundleRules.map((r) => r.name).sort()).toEqual(['Fraud reviews waiting', 'New error incidents']);
    const waiting = bundleRules.find((r) => r.name === 'Fraud reviews waiting')!;
    expect(waiting).toMatchObject({ when: { trigger: 'mailbox.sla', mailbox_type: 'fraud_review' }, destination_ids: [], escalation_destination_ids: [] });
    const onCall = await ok(server, 'alert.destination_create', { name: 'on-call', kind: 'webhook', url: 'http://127.0.0.1:9/on-call' });
    const after = (await ok(server, 'alert.rules', {})).items.find((r) => r.id === waiting.id)!;
    expect(after.destination_ids).toEqual([onCall.destination.id]);
    await fails(server, 'alert.destination_delete', { destination_id: onCall.destination.id }, 'DESTINATION_IN_USE');
    // The stored rule is what counts: an update through the API changes it.
    const updated = await ok(server, 'alert.rule_update', { rule_id: waiting.id, enabled: false });
    expect(updated.rule).toMatchObject({ source: 'bundle', enabled: false, destination_ids: [onCall.destination.id] });
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'alert.rules', { source: 'bundle' }, 'INVALID_PARAMS');
  });
});
