/**
 * alert.notice_resend: a notice whose attempts ran out is failed, and a resend sends it again with
 * the same webhook-id; one that did not fail is refused. A receiver on a local port answers as told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, ok } from '../control-helpers';
import { startTestServer, type TestServer } from '../harness';
import { noticeStatus } from './alert-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';

let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { SWITCHBOARD_ALERT_BACKOFF_MS: '50', SWITCHBOARD_ALERT_MAX_ATTEMPTS: '3' } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe('alert.notice_resend', () => {
  it('NOT_FOUND for an unknown notice; NOTICE_NOT_FAILED for one that was delivered', async () => {
    await fails(server, 'alert.notice_resend', { notice_id: 'ntc_nope' }, 'NOT_FOUND');
    receiver.answer = 204;
    const { destination } = await ok(server, 'alert.destination_create', { name: 'up', kind: 'webhook', url: receiver.url });
    const { notice } = await ok(server, 'alert.test', { destination_id: destination.id });
    await expect.poll(async () => (await noticeStatus(server, notice.id)).status === 'delivered', { timeout: 10_000, message: 'the notice to be delivered' }).toBe(true);
    await fails(server, 'alert.notice_resend', { notice_id: notice.id }, 'NOTICE_NOT_FAILED');
  });

  it('fails a notice after its last attempt; a resend sends it again with the same id', async () => {
    receiver.received.length = 0;
    receiver.answer = 503;
    const { destination } = await ok(server, 'alert.destination_create', { name: 'down', kind: 'webhook', url: receiver.url });
    const { notice } = await ok(server, 'alert.test', { destination_id: destination.id });
    await expect.poll(async () => (await noticeStatus(server, notice.id)).status === 'failed', { timeout: 10_000, message: 'the notice to fail' }).toBe(true);
    expect(await noticeStatus(server, notice.id)).toMatchObject({ status: 'failed', attempts: 3, last_error: 'HTTP 503' });
    expect(receiver.received).toHaveLength(3);
    receiver.answer = 204;
    const resent = await ok(server, 'alert.notice_resend', { notice_id: notice.id });
    expect(resent.notice).toMatchObject({ id: notice.id, status: 'pending' });
    await expect.poll(async () => (await noticeStatus(server, notice.id)).status === 'delivered', { timeout: 10_000, message: 'the resent notice to be delivered' }).toBe(true);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([notice.id, notice.id, notice.id, notice.id]);
  });
});
