/**
 * A span per JSON-RPC call, over HTTP or the WebSocket, through the OpenTelemetry API: a no-op
 * while tracing is off (see tracing.ts). The runtime's spans (publish, delivery) start under it.
 */
import { INVALID_TRACEID, SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import type { RpcError } from '@switchboard/contract';

const tracer = trace.getTracer('switchboard-rpc');
const SERVER = { kind: SpanKind.SERVER } as const;

/** `method` only when known: a caller's made-up method names must not become span names. */
export function startRpcSpan(method: string | undefined, transport: 'http' | 'ws', correlationId: string): Span {
  const span = tracer.startSpan('rpc', SERVER);
  if (span.isRecording()) {
    span.updateName(method ?? 'rpc (unknown method)');
    span.setAttributes({
      'rpc.system': 'jsonrpc',
      'rpc.method': method ?? '_OTHER',
      'switchboard.transport': transport,
      'switchboard.correlation_id': correlationId,
    });
  }
  return span;
}

/** Whether the span carries a trace context (an SDK made it, sampled or not): false while tracing is off. */
export function isTraced(span: Span): boolean {
  return span.spanContext().traceId !== INVALID_TRACEID;
}

/** Runs the call with its span active, so the spans the call makes are its children. */
export function inRpcSpan<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Ends the span with the call's outcome: `ok` or its error code. */
export function endRpcSpan(span: Span, error: RpcError | undefined): void {
  if (span.isRecording()) {
    span.setAttribute('switchboard.rpc.outcome', error ? error.code : 'ok');
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
  }
  span.end();
}
