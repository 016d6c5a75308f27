/**
 * Issue 38: tracing is off unless the OTEL_* variables ask for it, and then no OpenTelemetry SDK
 * is loaded at all. Checked from outside the server process: a module-resolution hook preloaded
 * into it logs every @opentelemetry module it resolves. With tracing on, the same hook sees the
 * SDK and the exporter (so the check can fail), spans reach an OTLP receiver, and a graceful stop
 * flushes the spans still buffered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashServers } from './crash-servers';
import { OtlpReceiver } from './otlp-receiver';
import { runServerToExit } from './server-process';

const TRACES_BUNDLE = fileURLToPath(new URL('./bundles/traces.yaml', import.meta.url));
const MODULE_LOG_HOOK = fileURLToPath(new URL('./module-log/register.mjs', import.meta.url));
const { dataDir, start, rpc } = crashServers('tracing-process', 'sbk_tracing_process_token_000001');

const SDK_MODULES = /@opentelemetry\/(sdk-|exporter-|resources|otlp-|context-async-hooks|core)/;

/** A server process on the traces bundle whose OpenTelemetry module resolutions are logged; the log's lines. */
async function startLogged(name: string, env: Record<string, string> = {}) {
  const log = path.join(dataDir, `${name}.modules`);
  const server = await start({ SWITCHBOARD_BUNDLE: TRACES_BUNDLE, NODE_OPTIONS: `--import=${MODULE_LOG_HOOK}`, SWITCHBOARD_TEST_MODULE_LOG: log, ...env });
  const modules = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') : []);
  return { server, modules };
}

async function stop(server: Awaited<ReturnType<typeof start>>): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

describe('with no OTEL_* variables', () => {
  it('starts no OpenTelemetry SDK: health.check says so and no SDK module is loaded', async () => {
    const { server, modules } = await startLogged('off');
    try {
      expect((await rpc(server.url, 'health.check')).tracing).toEqual({ enabled: false });
      // Spans are made (as the API's no-ops) on the paths a publish takes.
      const published = await rpc(server.url, 'event.publish', { event_name: 'order.placed', payload: { order_id: 'off-1' } });
      const { events } = await rpc(server.url, 'event.list', { filter: { event_id: published.event_id! } });
      expect(events[0]).not.toHaveProperty('trace_id');
      expect((await rpc(server.url, 'run.get', { run_id: published.run_id })).run).not.toHaveProperty('trace_id');
    } finally {
      await stop(server);
    }
    const loaded = modules();
    // The hook works: it saw the API the runtime imports.
    expect(loaded.some((url) => url.includes('/@opentelemetry/api/'))).toBe(true);
    expect(loaded.filter((url) => SDK_MODULES.test(url))).toEqual([]);
  });

  it('refuses an exporter it does not support, in one line', async () => {
    const { status, stderr } = runServerToExit({ SWITCHBOARD_DATA_DIR: path.join(dataDir, 'refused'), OTEL_TRACES_EXPORTER: 'zipkin' });
    expect(status).toBe(2);
    expect(stderr.trim()).toBe('switchboard: invalid tracing configuration: OTEL_TRACES_EXPORTER: zipkin is not supported; use otlp (or none)');
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let receiver: OtlpReceiver;
  let endpoint: string;
  beforeAll(async () => {
    receiver = new OtlpReceiver();
    endpoint = await receiver.start();
  });
  afterAll(() => receiver?.stop());

  it('loads the SDK, keeps a queued publish in its trace, and a graceful stop flushes the spans it still holds', async () => {
    // Batches every minute: only the flush at stop sends the spans within this test.
    const { server, modules } = await startLogged('on', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '60000' });
    let published;
    let queued;
    let queuedTraceId: string | undefined;
    try {
      expect((await rpc(server.url, 'health.check')).tracing).toEqual({ enabled: true });
      published = await rpc(server.url, 'event.publish', { event_name: 'order.placed', payload: { order_id: 'on-1' } });
      await expect.poll(async () => (await rpc(server.url, 'run.get', { run_id: published!.run_id })).run.status, { timeout: 15_000 }).toBe('completed');
      // A publish queued while ingress is paused keeps its trace until its event is written at resume.
      await rpc(server.url, 'runtime.pause', {});
      queued = await rpc(server.url, 'event.publish', { event_name: 'order.placed', payload: { order_id: 'on-queued' } });
      expect(queued.status).toBe('queued');
      await rpc(server.url, 'runtime.resume', {});
      const { events } = await rpc(server.url, 'event.list', { filter: { event_id: queued.event_id! } });
      queuedTraceId = events[0]!.trace_id;
      expect(queuedTraceId).toMatch(/^[0-9a-f]{32}$/);
      expect(receiver.spans).toEqual([]);
    } finally {
      await stop(server);
    }
    const queuedPublish = receiver.spans.find((s) => s.name === 'publish order.placed' && s.attributes['switchboard.event.id'] === queued!.event_id);
    expect(queuedPublish?.traceId).toBe(queuedTraceId);
    expect(modules().some((url) => url.includes('/@opentelemetry/sdk-trace-node/'))).toBe(true);
    const publish = receiver.spans.find((s) => s.name === 'publish order.placed' && s.attributes['switchboard.event.id'] === published.event_id);
    expect(publish?.attributes['switchboard.event.id']).toBe(published.event_id);
    const rpcSpan = receiver.spans.find((s) => s.spanId === publish!.parentSpanId);
    expect(rpcSpan?.attributes['rpc.method']).toBe('event.publish');
    expect(receiver.inTrace(publish!.traceId).filter((s) => s.name.startsWith('deliver')).map((s) => s.attributes['switchboard.subscriber.id']).sort()).toEqual(['check-stock', 'clerk', 'confirm']);
  });
});
