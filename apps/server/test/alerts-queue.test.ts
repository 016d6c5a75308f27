/**
 * The queue.oldest_pending condition: with one handler at a time and slow deliveries, due
 * deliveries wait; the rule notifies once while the backlog lasts, and once more for a second
 * backlog after the first drained. Runs on the test engine.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE, ok, waitForQuiet } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_DISPATCH_CONCURRENCY: '1', SWITCHBOARD_ALERT_EVALUATE_MS: '200' } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

/** Slow deliveries (each holds the one handler about 1.5 s) queued behind each other. */
async function backlog(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await ok(server, 'event.publish', { event_name: 'slow.work', payload: { i } });
}

it('notifies once per backlog whose oldest due delivery waited past the threshold', async () => {
  const { destination } = await ok(server, 'alert.destination_create', { name: 'on-call', kind: 'webhook', url: receiver.url });
  const { rule } = await ok(server, 'alert.rule_create', { name: 'queue waiting', when: { trigger: 'queue.oldest_pending', older_than_s: 2 }, destination_ids: [destination.id] });
  const queueNotices = async () => (await ok(server, 'alert.notices', { rule_id: rule.id, limit: 10 })).items;

  await backlog(4);
  await expect.poll(async () => (await queueNotices()).length === 1, { timeout: 20_000, message: 'the first backlog notice' }).toBe(true);
  await waitForQuiet(server, 30_000);
  expect(await queueNotices()).toHaveLength(1);
  expect((await queueNotices())[0]).toMatchObject({ transition: 'queue.oldest_pending', subject_type: 'queue' });

  await backlog(4);
  await expect.poll(async () => (await queueNotices()).length === 2, { timeout: 20_000, message: 'the second backlog notice' }).toBe(true);
  await waitForQuiet(server, 30_000);
  expect(await queueNotices()).toHaveLength(2);
}, 120_000);
