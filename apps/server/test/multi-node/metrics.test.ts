/**
 * /metrics on two servers of one PostgreSQL database, scraped as Prometheus scrapes them (every
 * server): per-server counters carry each server's own label and add up to the cluster's work; the
 * cluster gauges read from the database come from one server only (the oldest live one), so their
 * sum over both scrapes counts each thing once. When that server dies the other one takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitSettled } from './audit';
import { CHAOS_TOKEN, Cluster, type ChaosServer } from './cluster';
import { samples, scrape, valueOf, type Scrape } from '../metrics-scrape';

let cluster: Cluster;
let a: ChaosServer;
let b: ChaosServer;

beforeAll(async () => {
  cluster = await Cluster.onTestDatabase('metrics');
  // a starts first: the oldest live server, which reports the cluster gauges.
  [a, b] = (await cluster.startAll(['a', 'b'])) as [ChaosServer, ChaosServer];
}, 200_000);
afterAll(() => cluster?.dispose());

/** A metric's samples summed over the scrapes (a scrape without the metric adds 0), as sum(metric) over the cluster would. */
function summed(scrapes: Scrape[], name: string, labels: Record<string, string> = {}): number {
  return scrapes.reduce((total, s) => total + (s.families.has(name) ? samples(s, name, labels).reduce((n, m) => n + Number(m.value), 0) : 0), 0);
}

describe('two servers scraped together', () => {
  it('per-server counters carry distinct server labels and add up to the work done', async () => {
    for (let n = 0; n < 3; n++) await cluster.ok(a, 'event.publish', { event_name: 'work', payload: { key: `ma-${n}` } });
    for (let n = 0; n < 2; n++) await cluster.ok(b, 'event.publish', { event_name: 'work', payload: { key: `mb-${n}` } });
    // doom always fails: two retries then a dead letter, on whichever server claims each attempt.
    await cluster.ok(b, 'event.publish', { event_name: 'doomed', payload: { key: 'md-0' } });
    expect(await waitSettled(cluster, 30_000)).toBe(true);
    const [onA, onB] = [await scrape(a.url, CHAOS_TOKEN), await scrape(b.url, CHAOS_TOKEN)];

    expect(valueOf(onA, 'switchboard_server_up', { server: a.serverId })).toBe(1);
    expect(valueOf(onB, 'switchboard_server_up', { server: b.serverId })).toBe(1);
    for (const [s, server] of [[onA, a], [onB, b]] as const) {
      const labels = new Set([...s.families.values()].flatMap((f) => f.metrics.map((m) => m.labels?.server)));
      expect([...labels]).toEqual([server.serverId]);
    }
    expect(a.serverId).not.toBe(b.serverId);
    // Publishes count where they were called; deliveries where they ran (either server).
    expect(valueOf(onA, 'switchboard_publishes_total', { event: 'work', outcome: 'running' })).toBe(3);
    expect(valueOf(onB, 'switchboard_publishes_total', { event: 'work', outcome: 'running' })).toBe(2);
    expect(summed([onA, onB], 'switchboard_deliveries_total', { subscriber: 'tally', outcome: 'delivered' })).toBe(5);
    expect(summed([onA, onB], 'switchboard_deliveries_total', { subscriber: 'echo', outcome: 'delivered' })).toBe(5);
    expect(summed([onA, onB], 'switchboard_deliveries_total', { subscriber: 'doom', outcome: 'retry' })).toBe(2);
    expect(summed([onA, onB], 'switchboard_deliveries_total', { subscriber: 'doom', outcome: 'dead_letter' })).toBe(1);
    expect(summed([onA, onB], 'switchboard_dead_letters_total', { subscriber: 'doom' })).toBe(1);
    expect(summed([onA, onB], 'switchboard_rpc_requests_total', { method: 'event.publish', outcome: 'ok' })).toBe(6);
  });

  it('cluster gauges come from the oldest live server only: their sum counts each thing once', async () => {
    await cluster.ok(b, 'runtime.pause', { reason: 'metrics test' });
    for (let n = 0; n < 3; n++) expect(await cluster.ok(a, 'event.publish', { event_name: 'work', payload: { key: `mq-${n}` } })).toMatchObject({ status: 'queued' });
    const [onA, onB] = [await scrape(a.url, CHAOS_TOKEN), await scrape(b.url, CHAOS_TOKEN)];
    await cluster.ok(a, 'runtime.resume', {});

    expect(valueOf(onA, 'switchboard_server_reports_cluster')).toBe(1);
    expect(valueOf(onB, 'switchboard_server_reports_cluster')).toBe(0);
    expect(summed([onA, onB], 'switchboard_ingress_queued_publishes')).toBe(3);
    expect(summed([onA, onB], 'switchboard_servers_live')).toBe(2);
    expect(valueOf(onA, 'switchboard_servers_live')).toBe(2);
    // The other server leaves them out of its scrape.
    for (const name of ['switchboard_ingress_queued_publishes', 'switchboard_servers_live', 'switchboard_deliveries_open', 'switchboard_incidents_open', 'switchboard_mailbox_pending_items', 'switchboard_operations_running', 'switchboard_delivery_oldest_pending_age_seconds']) {
      expect(onB.families.has(name), name).toBe(false);
      expect(onA.families.has(name), name).toBe(true);
    }
    // The dead letter's incident, once.
    expect(summed([onA, onB], 'switchboard_incidents_open', { level: 'error' })).toBeGreaterThan(0);
    expect(summed([onA, onB], 'switchboard_incidents_open', { level: 'error' })).toBe(valueOf(onA, 'switchboard_incidents_open', { level: 'error' }));
    expect(await waitSettled(cluster, 30_000)).toBe(true);
  });

  it('when the reporting server dies, the other one reports the cluster gauges', async () => {
    await cluster.kill(a);
    let onB: Scrape | undefined;
    await expect
      .poll(
        async () => {
          onB = await scrape(b.url, CHAOS_TOKEN);
          return valueOf(onB, 'switchboard_server_reports_cluster');
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(1);
    expect(valueOf(onB!, 'switchboard_servers_live')).toBe(1);
    expect(valueOf(onB!, 'switchboard_ingress_queued_publishes')).toBe(0);
  });
});
