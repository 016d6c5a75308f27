/**
 * Issue 38, traces across servers: two server processes on one PostgreSQL database export spans to
 * an OTLP/HTTP receiver in this process. A publish through server A, whose deliveries run on A and
 * on B and emit further events, is one trace: the RPC call, the publish, each delivery on the server
 * that ran it (its server id, checked against the process that exported the span), the model and
 * tool calls, and the publishes of the emitted events and their own deliveries.
 *
 * Server A runs one handler at a time: the publish leases its first delivery (the clerk agent, whose
 * model call takes 800 ms) to A, so the second (check-stock) waits for a claim, and B takes it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StoredEvent } from '@switchboard/contract';
import { OtlpReceiver, type ReceivedSpan } from '../otlp-receiver';
import { Cluster, type ChaosServer } from './cluster';

const TRACES_BUNDLE = fileURLToPath(new URL('../bundles/traces.yaml', import.meta.url));
const MODEL_LATENCY_MS = 800;

let receiver: OtlpReceiver;
let model: http.Server;
let cluster: Cluster;
let a: ChaosServer;
let b: ChaosServer;

/** An OpenAI-compatible model that answers every chat completion with an emit, and reports its token usage. */
async function startModel(): Promise<string> {
  model = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        const content = JSON.stringify({ action: 'emit', payload: { noted: true }, summary: 'noted' });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ model: 'fake-model-1', choices: [{ message: { role: 'assistant', content } }], usage: { prompt_tokens: 42, completion_tokens: 7 } }));
      }, MODEL_LATENCY_MS);
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  receiver = new OtlpReceiver();
  const endpoint = await receiver.start();
  const modelUrl = await startModel();
  cluster = await Cluster.onTestDatabase('traces', {
    SWITCHBOARD_BUNDLE: TRACES_BUNDLE,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'switchboard-traces-test',
    SWITCHBOARD_MODEL_PROVIDER: 'openai',
    SWITCHBOARD_OPENAI_BASE_URL: modelUrl,
    SWITCHBOARD_OPENAI_MODEL: 'fake-model',
  });
  a = await cluster.start('a', { SWITCHBOARD_DISPATCH_CONCURRENCY: '1', OTEL_RESOURCE_ATTRIBUTES: 'switchboard.test.server=a' });
  b = await cluster.start('b', { OTEL_RESOURCE_ATTRIBUTES: 'switchboard.test.server=b' });
}, 200_000);

afterAll(async () => {
  await cluster?.dispose();
  await receiver?.stop();
  await new Promise<void>((resolve) => (model ? model.close(() => resolve()) : resolve()));
});

const one = (spans: ReceivedSpan[], what: string, match: (s: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(match);
  if (found.length !== 1) throw new Error(`expected one ${what} span, found ${found.length}: ${JSON.stringify(spans.map((s) => s.name))}`);
  return found[0]!;
};

it('follows a publish through server A, deliveries on both servers and the events they emit, in one trace', async () => {
  expect((await cluster.ok(a, 'health.check')).tracing).toEqual({ enabled: true });
  const published = await cluster.ok(a, 'event.publish', { event_name: 'order.placed', payload: { order_id: 'o-1' } });
  const runId = published.run_id;
  await expect.poll(async () => (await cluster.ok(a, 'run.get', { run_id: runId })).run.status, { timeout: 30_000, interval: 100 }).toBe('completed');

  const events = (await cluster.ok(b, 'event.list', { filter: { run_id: runId } })).events;
  const byName = new Map<string, StoredEvent>(events.map((e) => [e.event_name, e]));
  expect([...byName.keys()].sort()).toEqual(['order.checked', 'order.confirmed', 'order.noted', 'order.placed']);
  const root = byName.get('order.placed')!;
  const traceId = root.trace_id!;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  // Every event of the run, emitted on either server, is in the publish's trace; so is the run.
  for (const e of events) expect(e.trace_id, e.event_name).toBe(traceId);
  expect((await cluster.ok(b, 'run.get', { run_id: runId })).run.trace_id).toBe(traceId);

  // Spans arrive in batches from each process, and a delivery's span ends after the spans of what
  // it did (the clerk's ends after its model call and its emit): wait for every delivery and publish.
  const deliveredTo = (subscriber: string) => receiver.inTrace(traceId).some((s) => s.attributes['switchboard.subscriber.id'] === subscriber && s.name.startsWith('deliver'));
  const complete = () =>
    ['clerk', 'check-stock', 'confirm'].every(deliveredTo) && receiver.inTrace(traceId).filter((s) => s.name.startsWith('publish ')).length >= 4;
  await expect.poll(complete, { timeout: 15_000, interval: 50 }).toBe(true);
  const spans = receiver.inTrace(traceId);
  expect(receiver.refused).toEqual([]);

  const rpc = one(spans, 'RPC', (s) => s.attributes['rpc.method'] === 'event.publish');
  expect(rpc).toMatchObject({ parentSpanId: undefined, resource: { 'switchboard.test.server': 'a', 'service.name': 'switchboard-traces-test' } });
  expect(rpc.attributes).toMatchObject({ 'rpc.system': 'jsonrpc', 'switchboard.rpc.outcome': 'ok', 'switchboard.transport': 'http' });
  expect(rpc.attributes['switchboard.correlation_id']).toEqual(expect.any(String));

  const publishOf = (name: string) => one(spans, `publish ${name}`, (s) => s.name === `publish ${name}`);
  const deliveryTo = (subscriber: string) => one(spans, `delivery to ${subscriber}`, (s) => s.name.startsWith('deliver') && s.attributes['switchboard.subscriber.id'] === subscriber);

  const publish = publishOf('order.placed');
  expect(publish.parentSpanId).toBe(rpc.spanId);
  expect(publish.attributes).toMatchObject({ 'switchboard.event.id': root.event_id, 'switchboard.run.id': runId });

  const serverIdOf = (label: unknown) => (label === 'a' ? a.serverId : label === 'b' ? b.serverId : undefined);
  const clerk = deliveryTo('clerk');
  const checkStock = deliveryTo('check-stock');
  for (const d of [clerk, checkStock]) {
    expect(d.parentSpanId, d.name).toBe(publish.spanId);
    expect(d.attributes).toMatchObject({ 'switchboard.event.id': root.event_id, 'switchboard.delivery.attempt': 1, 'switchboard.delivery.outcome': 'delivered' });
  }
  // Each delivery names the server that ran it: the process that exported its span.
  for (const d of spans.filter((s) => s.name.startsWith('deliver'))) expect(d.attributes['switchboard.server.id'], d.name).toBe(serverIdOf(d.resource['switchboard.test.server']));
  // A was busy with the clerk's model call: B claimed check-stock, continuing the trace stored with the event.
  expect(clerk.attributes['switchboard.server.id']).toBe(a.serverId);
  expect(checkStock.attributes['switchboard.server.id']).toBe(b.serverId);

  const modelCall = one(spans, 'model call', (s) => s.attributes['gen_ai.operation.name'] === 'chat');
  expect(modelCall.parentSpanId).toBe(clerk.spanId);
  expect(modelCall.attributes).toMatchObject({
    'gen_ai.provider.name': 'openai-compatible',
    'gen_ai.response.model': 'fake-model-1',
    'gen_ai.usage.input_tokens': 42,
    'gen_ai.usage.output_tokens': 7,
  });
  const toolCall = one(spans, 'tool call', (s) => s.attributes['switchboard.tool.name'] === 'lookup');
  expect(toolCall.parentSpanId).toBe(checkStock.spanId);
  expect(toolCall.attributes).toMatchObject({ 'switchboard.tool.server': 'mcp.stock', 'switchboard.tool.outcome': 'ok' });

  // The emitted events' publishes are children of the delivery that emitted them; the next
  // generation's delivery continues that delivery's context, on whichever server claimed it.
  const noted = publishOf('order.noted');
  expect(noted.parentSpanId).toBe(clerk.spanId);
  expect(noted.attributes['switchboard.event.id']).toBe(byName.get('order.noted')!.event_id);
  const checked = publishOf('order.checked');
  expect(checked.parentSpanId).toBe(checkStock.spanId);
  expect(checked.attributes['switchboard.event.id']).toBe(byName.get('order.checked')!.event_id);
  const confirm = deliveryTo('confirm');
  expect(confirm.parentSpanId).toBe(checkStock.spanId);
  expect(confirm.attributes['switchboard.event.id']).toBe(byName.get('order.checked')!.event_id);
  const confirmed = publishOf('order.confirmed');
  expect(confirmed.parentSpanId).toBe(confirm.spanId);
  expect(confirmed.attributes['switchboard.event.id']).toBe(byName.get('order.confirmed')!.event_id);
}, 60_000);
