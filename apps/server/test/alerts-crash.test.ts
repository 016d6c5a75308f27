/**
 * Crash test: an incident opens, its notice commits with the record, and the server process is
 * SIGKILLed while the webhook receiver is still holding the notice's request. Started again on the
 * same data folder, the server sends the notice again, with the same webhook-id, and it verifies.
 * (SQLite: a restarted process drops the killed one's notice leases at boot; PostgreSQL servers wait
 * for the lease to lapse, which the multi-node test covers.)
 */
import { expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';

import { crashServers } from './crash-servers';
import { startWebhookReceiver } from './webhook-receiver';

const { start: startServerProcess, rpc } = crashServers('alerts-crash', 'sbk_crash_test_token_0000000038');

it('a notice whose send was cut by kill -9 arrives after the restart, with the same webhook-id', async () => {
  const receiver = await startWebhookReceiver();
  try {
    receiver.answer = 'hang';
    const first = await startServerProcess();
    const { destination, secret } = await rpc(first.url, 'alert.destination_create', { name: 'on-call', kind: 'webhook', url: receiver.url });
    await rpc(first.url, 'alert.rule_create', { name: 'opened', when: { trigger: 'incident.opened' }, destination_ids: [destination.id] });
    await rpc(first.url, 'event.publish', { event_name: 'charge.requested', payload: { n: 1 } });
    const [cut] = await receiver.waitForRequests(1);
    first.child.kill('SIGKILL');
    await first.exited;

    receiver.answer = 204;
    const second = await startServerProcess();
    // Other notices (the charge's retry incident, say) may arrive first, before or after the kill.
    const sendsOfCut = () => receiver.received.filter((r) => r.headers['webhook-id'] === cut!.headers['webhook-id']);
    await expect.poll(async () => sendsOfCut().length >= 2, { timeout: 60_000, message: 'the cut notice to be sent again' }).toBe(true);
    const resent = sendsOfCut()[1];
    expect(resent).toBeDefined();
    const body = new Webhook(secret!).verify(resent!.body, resent!.headers as Record<string, string>) as { type: string };
    expect(['incident.opened']).toContain(body.type);
    await expect.poll(async () => (await rpc(second.url, 'alert.notices', { status: 'pending', limit: 10 })).items.length === 0, { timeout: 20_000, message: 'every notice to be delivered' }).toBe(true);
    const history = (await rpc(second.url, 'alert.notices', { limit: 50 })).items;
    expect(history.find((n) => n.id === cut!.headers['webhook-id'])).toMatchObject({ status: 'delivered', transition: 'incident.opened' });
    // Every id that arrived is a notice of the history: resends reuse ids, none is made anew.
    expect([...new Set(receiver.received.map((r) => r.headers['webhook-id']))].sort()).toEqual(history.map((n) => n.id).sort());
  } finally {
    await receiver.close();
  }
}, 120_000);
