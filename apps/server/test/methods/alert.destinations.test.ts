/** alert.destinations: every destination in the order made, without secrets or a Slack URL's path. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.destinations', () => {
  it('lists destinations in the order they were made, with neither the signing secret nor the Slack path', async () => {
    expect((await ok(server, 'alert.destinations', {})).items).toEqual([]);
    const webhook = await ok(server, 'alert.destination_create', { name: 'first', kind: 'webhook', url: 'http://127.0.0.1:9/first' });
    const slack = await ok(server, 'alert.destination_create', { name: 'second', kind: 'slack', url: 'https://hooks.slack.com/services/T1/B1/PATHSECRET' });
    const listed = await ok(server, 'alert.destinations', {});
    expect(listed.items).toEqual([webhook.destination, slack.destination]);
    expect(JSON.stringify(listed)).not.toContain(webhook.secret!);
    expect(JSON.stringify(listed)).not.toContain('PATHSECRET');
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'alert.destinations', { kind: 'slack' }, 'INVALID_PARAMS');
  });
});
