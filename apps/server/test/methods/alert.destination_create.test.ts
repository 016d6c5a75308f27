/** alert.destination_create: a webhook's signing secret is shown in the creating answer only; a Slack URL is never shown in full. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { opsWebhook } from './alert-fixtures';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('alert.destination_create', () => {
  it('a webhook gets a whsec_ secret in the creating answer only; a Slack URL is listed without its path', async () => {
    const created = await ok(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', idempotency_key: 'dst-1' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created.destination).toMatchObject({ name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', created_by: expect.any(String) });
    const replayed = await ok(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', idempotency_key: 'dst-1' });
    expect(replayed.secret).toBeUndefined();
    expect(replayed.destination).toEqual(created.destination);

    const slack = await ok(server, 'alert.destination_create', { name: 'ops slack', kind: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXXSECRET' });
    expect(slack.secret).toBeUndefined();
    expect(slack.destination.url).toBe('https://hooks.slack.com/…');

    const listed = await ok(server, 'alert.destinations', {});
    const text = JSON.stringify(listed);
    expect(text).not.toContain(created.secret!);
    expect(text).not.toContain('XXXXSECRET');
    expect(listed.items.map((d) => d.name)).toEqual(['ops webhook', 'ops slack']);
    // Nor does the audit trail keep the Slack URL.
    const audit = await ok(server, 'audit.list', { method: 'alert.destination_create', limit: 10 });
    expect(JSON.stringify(audit)).not.toContain('XXXXSECRET');
  });

  it('INVALID_PARAMS for a name already taken', async () => {
    const webhook = await opsWebhook(server);
    await fails(server, 'alert.destination_create', { name: webhook.name, kind: 'webhook', url: 'http://127.0.0.1:9/other' }, 'INVALID_PARAMS');
  });
});
