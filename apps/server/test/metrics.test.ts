/**
 * GET /metrics over real HTTP: after a known workload on the control bundle (publishes, deliveries,
 * a retry and a dead letter, a mailbox decision, a queued publish, calls over HTTP and WebSocket)
 * the scrape, read back with a Prometheus text parser, holds exactly those counts. Then who may
 * scrape (401, 403), the separate scrape port, and `promtool check metrics` on a real scrape.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { CONTROL_BUNDLE, ok, openOrderItem, waitForQuiet } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { countOf, promtoolCheck, samples, scrape, scrapedValue, sumOf, valueOf, type Scrape } from './metrics-scrape';
import { RpcSocket, wsUrl } from './ws-client';

const TICKS = 5;

let server: TestServer;
let before: Scrape;
let after: Scrape;
let socket: RpcSocket;

function promtoolOnPath(): boolean {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_METRICS_PORT: '0' } });
  before = await scrape(server.url, server.token);
  for (let n = 0; n < TICKS; n++) await ok(server, 'event.publish', { event_name: 'tick', payload: { n } });
  // charge-card always fails (mcp.flaky) and the bundle allows 2 attempts: one retry, then a dead letter.
  await ok(server, 'event.publish', { event_name: 'charge.requested', payload: {} });
  const item = await openOrderItem(server, 'M1', 40);
  await waitForQuiet(server);
  const pending = await scrape(server.url, server.token);
  expect(valueOf(pending, 'switchboard_mailbox_pending_items', { type: 'order_approval' })).toBe(1);
  await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, reason: 'fine' });
  await waitForQuiet(server);
  const refused = await server.rpcUnchecked('event.publish', { event_name: 'no.such.event', payload: {} });
  expect(refused.error?.data.code).toBe('UNKNOWN_EVENT');
  await server.rpcUnchecked('no.such.method', {});
  socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
  expect((await socket.call('health.subscribe', {})).error).toBeUndefined();
  expect((await socket.call('health.ping', {})).error).toBeUndefined();
  after = await scrape(server.url, server.token);
}, 90_000);

afterAll(async () => {
  socket?.socket.close();
  await server?.close();
});

describe('GET /metrics after a known workload', () => {
  it('counts publishes by event and outcome', () => {
    expect(valueOf(after, 'switchboard_publishes_total', { event: 'tick', outcome: 'running' })).toBe(TICKS);
    expect(valueOf(after, 'switchboard_publishes_total', { event: 'charge.requested', outcome: 'running' })).toBe(1);
    expect(valueOf(after, 'switchboard_publishes_total', { event: 'order.placed', outcome: 'running' })).toBe(1);
    expect(valueOf(before, 'switchboard_publishes_total')).toBe(0);
  });

  it('counts deliveries by subscriber and outcome, dead letters, and times every handler run', () => {
    const delivered = (subscriber: string) => valueOf(after, 'switchboard_deliveries_total', { subscriber, outcome: 'delivered' });
    expect(delivered('count-tick')).toBe(TICKS);
    expect(delivered('note-charge')).toBe(1);
    expect(delivered('record-order')).toBe(1);
    expect(delivered('order-approval')).toBe(1);
    expect(delivered('mark-approved')).toBe(1);
    expect(valueOf(after, 'switchboard_deliveries_total', { subscriber: 'charge-card', outcome: 'retry' })).toBe(1);
    expect(valueOf(after, 'switchboard_deliveries_total', { subscriber: 'charge-card', outcome: 'dead_letter' })).toBe(1);
    expect(delivered('charge-card')).toBe(0);
    expect(valueOf(after, 'switchboard_dead_letters_total', { subscriber: 'charge-card' })).toBe(1);
    expect(samples(after, 'switchboard_dead_letters_total')).toHaveLength(1);
    expect(countOf(after, 'switchboard_handler_duration_seconds', { subscriber: 'count-tick' })).toBe(TICKS);
    expect(countOf(after, 'switchboard_handler_duration_seconds', { subscriber: 'charge-card' })).toBe(2);
  });

  it('observes the time to decision of the approved item by type and outcome', () => {
    const decided = { type: 'order_approval', outcome: 'approved' };
    expect(countOf(after, 'switchboard_mailbox_time_to_decision_seconds', decided)).toBe(1);
    expect(sumOf(after, 'switchboard_mailbox_time_to_decision_seconds', decided)).toBeGreaterThanOrEqual(0);
    // The item waited less than the test has run: it lands in the first bucket (10 s).
    expect(valueOf(after, 'switchboard_mailbox_time_to_decision_seconds_bucket', { ...decided, le: '10' })).toBe(1);
    expect(samples(after, 'switchboard_mailbox_time_to_decision_seconds_count', { outcome: 'rejected' })).toHaveLength(0);
    expect(valueOf(after, 'switchboard_mailbox_pending_items', { type: 'order_approval' })).toBe(0);
  });

  it('counts RPC calls by method, transport and outcome, with a latency histogram per method', () => {
    const calls = (labels: Record<string, string>) => valueOf(after, 'switchboard_rpc_requests_total', labels);
    expect(calls({ method: 'event.publish', transport: 'http', outcome: 'ok' })).toBe(TICKS + 2);
    expect(calls({ method: 'event.publish', transport: 'http', outcome: 'UNKNOWN_EVENT' })).toBe(1);
    expect(calls({ method: 'mailbox.approve', transport: 'http', outcome: 'ok' })).toBe(1);
    // Whatever name a caller sends, an unknown method is one series.
    expect(calls({ method: 'unknown', transport: 'http', outcome: 'METHOD_NOT_FOUND' })).toBe(1);
    expect(samples(after, 'switchboard_rpc_requests_total', { method: 'no.such.method' })).toHaveLength(0);
    expect(calls({ method: 'health.ping', transport: 'ws', outcome: 'ok' })).toBe(1);
    expect(calls({ method: 'health.subscribe', transport: 'ws', outcome: 'ok' })).toBe(1);
    const publishCalls = TICKS + 2 + 1;
    expect(countOf(after, 'switchboard_rpc_request_duration_seconds', { method: 'event.publish' })).toBe(publishCalls);
    expect(valueOf(after, 'switchboard_rpc_request_duration_seconds_bucket', { method: 'event.publish', le: '+Inf' })).toBe(publishCalls);
  });

  it('shows this server’s WebSocket connections and heartbeat subscribers', () => {
    expect(valueOf(after, 'switchboard_websocket_connections')).toBe(1);
    expect(valueOf(after, 'switchboard_heartbeat_subscribers')).toBe(1);
    expect(valueOf(before, 'switchboard_websocket_connections')).toBe(0);
  });

  it('counts store transactions and group-commit sizes', () => {
    expect(valueOf(after, 'switchboard_store_transactions_total', { kind: 'group', outcome: 'commit' })).toBeGreaterThan(0);
    const groups = countOf(after, 'switchboard_store_group_commit_writes');
    expect(groups).toBe(valueOf(after, 'switchboard_store_transactions_total', { kind: 'group', outcome: 'commit' }));
    // The mailbox decision is a transaction of its own.
    expect(valueOf(after, 'switchboard_store_transactions_total', { kind: 'single', outcome: 'commit' })).toBeGreaterThan(0);
    expect(countOf(after, 'switchboard_store_transaction_duration_seconds', { kind: 'group' })).toBe(groups + valueOf(after, 'switchboard_store_transactions_total', { kind: 'group', outcome: 'rollback' }));
  });

  it('counts the container supervisor’s passes: the boot pass, then a sweep every five beats', async () => {
    // The control bundle has a managed container type; with one process this server supervises.
    const atBoot = valueOf(before, 'switchboard_container_sweeps_total');
    expect(atBoot).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => scrapedValue(server.url, server.token, 'switchboard_container_sweeps_total'), { timeout: 15_000, message: 'a sweep after boot' })
      .toBeGreaterThan(valueOf(after, 'switchboard_container_sweeps_total'));
  });

  it('exports the cluster gauges from the only server, with the store’s counts', async () => {
    expect(valueOf(after, 'switchboard_server_reports_cluster')).toBe(1);
    expect(valueOf(after, 'switchboard_servers_live')).toBe(1);
    expect(valueOf(after, 'switchboard_deliveries_open', { status: 'pending' })).toBe(0);
    expect(valueOf(after, 'switchboard_deliveries_open', { status: 'in_progress' })).toBe(0);
    expect(valueOf(after, 'switchboard_delivery_oldest_pending_age_seconds')).toBe(0);
    expect(valueOf(after, 'switchboard_operations_running')).toBe(0);
    // The same incidents the console lists as open, by their highest level.
    const { incidents } = await ok(server, 'runtime.incidents', { states: ['open'], limit: 100 });
    const byLevel = (level: string) => incidents.filter((i) => i.level === level).length;
    expect(byLevel('error')).toBeGreaterThan(0);
    for (const level of ['warn', 'error', 'fatal']) expect(valueOf(after, 'switchboard_incidents_open', { level })).toBe(byLevel(level));
  });

  it('labels every series with the server id, process metrics included', () => {
    const node = server.runtime.serverId;
    for (const family of after.families.values()) for (const m of family.metrics) expect(m.labels?.server, family.name).toBe(node);
    expect(valueOf(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(after, 'switchboard_server_up', { version: '0.1.0' })).toBe(1);
  });

  it('shows publishes queued while ingress is paused, and their queue', async () => {
    await ok(server, 'runtime.pause', { reason: 'metrics test' });
    try {
      expect(await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 99 } })).toMatchObject({ status: 'queued' });
      const paused = await scrape(server.url, server.token);
      expect(valueOf(paused, 'switchboard_publishes_total', { event: 'tick', outcome: 'queued' })).toBe(1);
      expect(valueOf(paused, 'switchboard_ingress_queued_publishes')).toBe(1);
    } finally {
      await ok(server, 'runtime.resume', {});
    }
    await waitForQuiet(server);
    const resumed = await scrape(server.url, server.token);
    expect(valueOf(resumed, 'switchboard_ingress_queued_publishes')).toBe(0);
  });

  it('shows a delivery waiting for its handler and how long the oldest due one has waited', async () => {
    // slow-call's tool never answers: its delivery stays in progress until the handler times out.
    await ok(server, 'event.publish', { event_name: 'slow.work', payload: {} });
    await expect.poll(() => server.runtime.dispatcher.inFlightCount > 0, { timeout: 5_000, message: 'the slow handler to start' }).toBe(true);
    const busy = await scrape(server.url, server.token);
    expect(valueOf(busy, 'switchboard_deliveries_open', { status: 'in_progress' }) + valueOf(busy, 'switchboard_deliveries_open', { status: 'pending' })).toBe(1);
    expect(valueOf(busy, 'switchboard_handlers_in_flight')).toBe(1);
    await waitForQuiet(server);
  });
});

describe('who may scrape', () => {
  const get = (url: string, token?: string) => fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('401 UNAUTHENTICATED without a token or with an unknown one, as the API answers', async () => {
    for (const token of [undefined, 'sbk_not_a_token_at_all_000000000']) {
      const res = await get(server.url, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      const body = (await res.json()) as { error: { data: { code: string } } };
      expect(body.error.data.code).toBe('UNAUTHENTICATED');
    }
  });

  it('403 FORBIDDEN for a token narrowed without the metrics scope; 200 for a viewer and a metrics-only token', async () => {
    const { user } = await ok(server, 'user.create', { display_name: 'Scraper owner', role: 'viewer' });
    const readOnly = (await ok(server, 'token.create', { user_id: user.id, name: 'reads only', scopes: ['read'] })).secret!;
    const metricsOnly = (await ok(server, 'token.create', { user_id: user.id, name: 'prometheus', scopes: ['metrics'] })).secret!;
    const viewer = (await ok(server, 'token.create', { user_id: user.id, name: 'viewer' })).secret!;
    const refused = await get(server.url, readOnly);
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { message: string; data: { code: string; details: Record<string, unknown> } } };
    expect(body.error.data.code).toBe('FORBIDDEN');
    expect(body.error.data.details).toEqual({ required_scope: 'metrics', role: 'viewer', needs_role: 'viewer' });
    expect(body.error.message).toContain('metrics scope');
    for (const token of [metricsOnly, viewer]) {
      const res = await get(server.url, token);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    }
    // A scrape-only token calls nothing else.
    const call = await server.rpcUnchecked('health.ping', {}, { token: metricsOnly });
    expect(call.error?.data.code).toBe('FORBIDDEN');
  });
});

describe('SWITCHBOARD_METRICS_PORT', () => {
  it('serves /metrics with the same checks on its own listener, and nothing else', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.metricsUrl).not.toBe(server.url);
    const own = await scrape(server.metricsUrl!, server.token);
    expect(valueOf(own, 'switchboard_publishes_total', { event: 'tick', outcome: 'running' })).toBeGreaterThanOrEqual(TICKS);
    expect((await fetch(`${server.metricsUrl}/metrics`)).status).toBe(401);
    const rpc = await fetch(`${server.metricsUrl}/v1/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.ping' }),
    });
    expect(rpc.status).toBe(404);
    expect((await fetch(`${server.metricsUrl}/healthz`)).status).toBe(404);
  });

  it('is checked at start: not with metrics off, not the API port', () => {
    expect(() => loadConfig({ SWITCHBOARD_METRICS: 'off', SWITCHBOARD_METRICS_PORT: '9464' })).toThrow(/SWITCHBOARD_METRICS_PORT: set, but SWITCHBOARD_METRICS is off/);
    expect(() => loadConfig({ PORT: '9000', SWITCHBOARD_METRICS_PORT: '9000' })).toThrow(/SWITCHBOARD_METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ SWITCHBOARD_METRICS_PORT: 'x' })).toThrow(/SWITCHBOARD_METRICS_PORT/);
    expect(loadConfig({ SWITCHBOARD_METRICS_PORT: '9464' }).metrics).toEqual({ enabled: true, port: 9464 });
    expect(loadConfig({}).metrics).toEqual({ enabled: true, port: undefined });
  });
});

describe('promtool check metrics', () => {
  const available = promtoolOnPath();

  it.runIf(process.env.CI === 'true')('is on PATH in CI (Debian package prometheus)', () => {
    expect(available, 'promtool is not on PATH: apt-get install prometheus').toBe(true);
  });

  it.skipIf(!available)('accepts a real scrape', async () => {
    const checked = await promtoolCheck((await scrape(server.url, server.token)).text);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  });
});

describe('SWITCHBOARD_METRICS=off', () => {
  it('serves no exposition at /metrics (the path falls through to the console)', async () => {
    const off = await startTestServer({ env: { SWITCHBOARD_METRICS: 'off' } });
    try {
      const res = await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${off.token}` } });
      expect(res.headers.get('content-type')).not.toContain('version=0.0.4');
      expect(await res.text()).not.toContain('switchboard_');
      expect(off.metricsUrl).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
