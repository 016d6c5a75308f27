/**
 * Alerts on two PostgreSQL servers, both running notice senders and the condition evaluator:
 * notices made on either server (test notices, and incident.opened from dead letters both servers
 * dispatch) each reach the receiver exactly once, under their own webhook-id; an incident opened
 * by records on both servers makes one notice.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';
import { Cluster, type ChaosServer } from './cluster';

let cluster: Cluster;
let a: ChaosServer;
let b: ChaosServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.delayMs = 150;
  cluster = await Cluster.onTestDatabase('alerts', { SWITCHBOARD_ALERT_BACKOFF_MS: '50', SWITCHBOARD_ALERT_EVALUATE_MS: '200' });
  [a, b] = (await cluster.startAll(['a', 'b'])) as [ChaosServer, ChaosServer];
}, 200_000);
afterAll(async () => {
  await cluster?.dispose();
  await receiver?.close();
});

it('each notice is sent once by one of two servers, and one incident makes one incident.opened notice', async () => {
  const { destination, secret } = await cluster.ok(a, 'alert.destination_create', { name: 'on-call', kind: 'webhook', url: receiver.url });
  // B makes the rule; A hears of it through the change feed. Whichever server writes an incident's first records, it makes one notice.
  await cluster.ok(b, 'alert.rule_create', { name: 'opened', when: { trigger: 'incident.opened' }, destination_ids: [destination.id] });

  const tests = await Promise.all(Array.from({ length: 40 }, (_, i) => cluster.ok(i % 2 ? a : b, 'alert.test', { destination_id: destination.id })));
  await Promise.all(Array.from({ length: 60 }, (_, i) => cluster.ok(i % 2 ? a : b, 'event.publish', { event_name: 'doomed', payload: { key: `doom-${i}` } })));

  await expect
    .poll(
      async () =>
        (
          await cluster.query<{ pending: number; deliveries: number }>(
            `select (select count(*)::int from alert_notices where status = 'pending') as pending,
                    (select count(*)::int from deliveries where status in ('pending', 'in_progress')) as deliveries`,
          )
        )[0],
      { timeout: 120_000, interval: 100 },
    )
    .toEqual({ pending: 0, deliveries: 0 });

  const notices = await cluster.query<{ id: string; transition: string; subject_id: string; status: string; attempts: number }>('select id, transition, subject_id, status, attempts from alert_notices');
  expect(notices.every((n) => n.status === 'delivered')).toBe(true);
  expect(notices.filter((n) => n.transition === 'test').map((n) => n.id).sort()).toEqual(tests.map((t) => t.notice.id).sort());
  // One incident.opened notice per incident, though both servers wrote its records.
  const opened = notices.filter((n) => n.transition === 'incident.opened');
  expect(opened.length).toBeGreaterThan(0);
  expect(new Set(opened.map((n) => n.subject_id)).size).toBe(opened.length);

  // Each id arrived exactly once (every attempt succeeded, so once is the whole story), and verifies.
  const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
  expect(ids.length).toBe(notices.length);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids)).toEqual(new Set(notices.map((n) => n.id)));
  for (const r of receiver.received) new Webhook(secret!).verify(r.body, r.headers as Record<string, string>);
  expect(notices.every((n) => Number(n.attempts) === 1)).toBe(true);
}, 300_000);

it('a server killed is declared dead by the other, which notifies once', async () => {
  const [destination] = await cluster.query<{ id: string }>(`select id from alert_destinations where name = 'on-call'`);
  const { rule } = await cluster.ok(a, 'alert.rule_create', { name: 'dead servers', when: { trigger: 'server.dead' }, destination_ids: [destination!.id] });
  await cluster.kill(b);
  await expect.poll(async () => (await cluster.query(`select id from alert_notices where rule_id = $1 and status = 'delivered'`, [rule.id])).length, { timeout: 30_000, interval: 100 }).toBe(1);
  const [notice] = await cluster.query<{ subject_id: string; transition: string }>(`select subject_id, transition from alert_notices where rule_id = $1`, [rule.id]);
  expect(notice).toEqual({ subject_id: b.serverId, transition: 'server.dead' });
  expect(receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'server.dead')).toHaveLength(1);
}, 120_000);
