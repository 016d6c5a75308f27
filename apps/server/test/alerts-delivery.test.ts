/**
 * Sending notices: a webhook gets Standard Webhooks headers whose signature verifies with the
 * `standardwebhooks` library; a receiver answering 500 gets retries with the same webhook-id until
 * it succeeds (a notice whose attempts ran out, and its resend, are in methods/alert.notice_resend.test.ts).
 * Runs on the test engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ok } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { noticeStatus } from './methods/alert-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { SWITCHBOARD_ALERT_BACKOFF_MS: '50', SWITCHBOARD_ALERT_MAX_ATTEMPTS: '3', SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com/' } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe('webhook notices', () => {
  it('signs per Standard Webhooks: the signature verifies with the secret, the id is the notice id', async () => {
    receiver.answer = 204;
    const { destination, secret } = await ok(server, 'alert.destination_create', { name: 'signed', kind: 'webhook', url: receiver.url });
    const { notice } = await ok(server, 'alert.test', { destination_id: destination.id });
    const [request] = await receiver.waitForRequests(1);
    expect(request!.headers['webhook-id']).toBe(notice.id);
    const verified = new Webhook(secret!).verify(request!.body, request!.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(verified).toMatchObject({ type: 'test', timestamp: notice.created_at, data: { notice_id: notice.id, subject_type: 'destination', title: notice.title, link: 'https://switchboard.example.com/alerts' } });
    // A tampered body or a wrong secret does not verify.
    expect(() => new Webhook(secret!).verify(request!.body.replace('test', 'tset'), request!.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook('whsec_' + Buffer.alloc(24, 1).toString('base64')).verify(request!.body, request!.headers as Record<string, string>)).toThrow();
    await expect.poll(async () => (await noticeStatus(server, notice.id)).status === 'delivered', { timeout: 10_000, message: 'the notice to be delivered' }).toBe(true);
    expect(await noticeStatus(server, notice.id)).toMatchObject({ status: 'delivered', attempts: 1, delivered_at: expect.any(String) });
  });

  it('retries a receiver answering 500 with the same webhook-id, then succeeds', async () => {
    receiver.received.length = 0;
    receiver.answer = 500;
    const { destination } = await ok(server, 'alert.destination_create', { name: 'flaky', kind: 'webhook', url: receiver.url });
    const { notice } = await ok(server, 'alert.test', { destination_id: destination.id });
    await receiver.waitForRequests(2);
    expect((await noticeStatus(server, notice.id)).last_error).toBe('HTTP 500');
    receiver.answer = 200;
    await expect.poll(async () => (await noticeStatus(server, notice.id)).status === 'delivered', { timeout: 10_000, message: 'the notice to be delivered' }).toBe(true);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(new Set(ids)).toEqual(new Set([notice.id]));
    // Each attempt is signed afresh; the message id stays.
    expect((await noticeStatus(server, notice.id)).attempts).toBe(ids.length);
  });

  it('posts a Slack message with a readable line and a link back to the console', async () => {
    receiver.received.length = 0;
    receiver.answer = 200;
    const { destination } = await ok(server, 'alert.destination_create', { name: 'slack', kind: 'slack', url: receiver.url.replace('/hook', '/services/T0/B0/secret') });
    await ok(server, 'alert.test', { destination_id: destination.id });
    const [request] = await receiver.waitForRequests(1);
    expect(request!.path).toBe('/services/T0/B0/secret');
    expect(request!.headers['webhook-id']).toBeUndefined();
    const message = JSON.parse(request!.body) as { text: string; blocks: { text?: { text: string } }[] };
    expect(message.text).toContain('Test notice to slack');
    expect(message.blocks[0]!.text!.text).toContain('<https://switchboard.example.com/alerts|Open in Switchboard>');
  });
});
