/**
 * OpenTelemetry tracing: off unless the standard OTEL_* variables ask for it. The SDK and the OTLP
 * exporter are imported here, dynamically, only when tracing is on: with it off no SDK module is
 * loaded and no tracer provider is registered, so the spans the runtime and the RPC layer make
 * through `@opentelemetry/api` are its no-ops.
 *
 * On when OTEL_TRACES_EXPORTER is `otlp` or an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_SDK_DISABLED is true or
 * OTEL_TRACES_EXPORTER is `none`. Spans go out as OTLP/HTTP JSON. The exporter reads its endpoint,
 * headers and timeout, and the SDK its sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG) and
 * batching (OTEL_BSP_*), from the environment themselves.
 */

export class TracingConfigError extends Error {}

export interface TracingSettings {
  serviceName: string;
}

let started = false;

/** Whether this process started the OpenTelemetry SDK (reported by health.check). */
export function tracingEnabled(): boolean {
  return started;
}

const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** What the environment asks for: undefined for tracing off; a clear error for what is not supported. */
export function tracingSettingsFrom(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  if (exporters.includes('none')) return undefined;
  const unsupported = exporters.filter((e) => e !== 'otlp');
  if (unsupported.length > 0) {
    throw new TracingConfigError(`OTEL_TRACES_EXPORTER: ${unsupported.join(', ')} is not supported; use otlp (or none)`);
  }
  const endpoint = isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (exporters.length === 0 && !endpoint) return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  if (protocol !== '' && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    throw new TracingConfigError(`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ${protocol} is not supported; traces are sent as OTLP over HTTP (http/json)`);
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const) {
    const value = env[name];
    if (isSet(value) && !/^https?:\/\/[^\s]+$/.test(value.trim())) throw new TracingConfigError(`${name}: must be an http(s) URL (got ${JSON.stringify(value.slice(0, 80))})`);
  }
  return { serviceName: isSet(env.OTEL_SERVICE_NAME) ? env.OTEL_SERVICE_NAME.trim() : 'switchboard' };
}

export interface Tracing {
  /** Flushes the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Starts the SDK when the environment asks for tracing (see tracingSettingsFrom); undefined when
 * it does not. Before the server starts, so its first spans are recorded.
 */
export async function startTracing(env: NodeJS.ProcessEnv, serviceVersion: string): Promise<Tracing | undefined> {
  const settings = tracingSettingsFrom(env);
  if (!settings) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { detectResources, envDetector, resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the env detector) take precedence over the defaults.
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': serviceVersion }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The W3C trace-context propagator (the default) writes and reads the traceparent stored with events.
  provider.register();
  started = true;
  return {
    async shutdown() {
      await provider.shutdown();
      started = false;
    },
  };
}
