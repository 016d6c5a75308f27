/**
 * The runtime's spans, through the OpenTelemetry API only. Without an SDK registered (tracing off,
 * the default) every span here is the API's non-recording no-op: nothing is serialised, no
 * attributes are built (each caller checks `isRecording()` first) and no context is entered.
 *
 * A publish's context travels with its event as a W3C `traceparent` (the `events.traceparent`
 * column): a delivery, on whichever server claims it and however late, starts its span as a child of
 * that context, and the events its handler emits store the delivery span's context in turn.
 */
import { INVALID_TRACEID, ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context, type Span } from '@opentelemetry/api';

export type { Span };

const tracer = trace.getTracer('switchboard-runtime');

const PRODUCER = { kind: SpanKind.PRODUCER } as const;
const CONSUMER = { kind: SpanKind.CONSUMER } as const;
const CLIENT = { kind: SpanKind.CLIENT } as const;

/** Whether the span carries a real context (an SDK made it, sampled or not). */
function hasContext(span: Span): boolean {
  return span.spanContext().traceId !== INVALID_TRACEID;
}

/** The span's context as a W3C traceparent, or undefined when tracing is off. */
export function traceparentOf(span: Span): string | undefined {
  if (!hasContext(span)) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** The active span's context as a traceparent, or undefined when there is none (tracing off). */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span ? traceparentOf(span) : undefined;
}

/** The trace id in a stored traceparent (`00-<trace id>-<span id>-<flags>`). */
export function traceIdOf(traceparent: string | null | undefined): string | undefined {
  if (!traceparent) return undefined;
  const traceId = traceparent.split('-')[1];
  return traceId && /^[0-9a-f]{32}$/.test(traceId) && traceId !== INVALID_TRACEID ? traceId : undefined;
}

/** Runs `fn` with `span` as the active span; without a context to carry, just runs it. */
export function withSpan<T>(span: Span, fn: () => T): T {
  return hasContext(span) ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** Ends `span` as failed with `error`'s message. */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** A publish of `eventName`, a child of the caller's active span (the RPC call). */
export function startPublishSpan(eventName: string): Span {
  const span = tracer.startSpan('publish', PRODUCER);
  if (span.isRecording()) {
    span.updateName(`publish ${eventName}`);
    span.setAttributes({ 'messaging.system': 'switchboard', 'messaging.operation.type': 'send', 'switchboard.event.name': eventName });
  }
  return span;
}

/** Ends a publish's span when its write commits (with the event's id) or fails. */
export async function endPublishSpan<T extends { event_id: string; run_id: string }>(span: Span, written: Promise<T>): Promise<T> {
  try {
    const result = await written;
    recordPublishedEvent(span, result.event_id, result.run_id);
    return result;
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** An event written by a publish or a handler's emit: its id on the span that wrote it. */
export function recordPublishedEvent(span: Span, eventId: string, runId: string): void {
  if (span.isRecording()) span.setAttributes({ 'switchboard.event.id': eventId, 'switchboard.run.id': runId });
}

/** The emit of `eventName` by a handler, a child of the delivery's span (`parent`); none while tracing is off. */
export function startEmitSpan(parent: Span, eventName: string): Span | undefined {
  if (!hasContext(parent)) return undefined;
  const span = tracer.startSpan('publish', PRODUCER, trace.setSpan(ROOT_CONTEXT, parent));
  if (span.isRecording()) {
    span.updateName(`publish ${eventName}`);
    span.setAttributes({ 'messaging.system': 'switchboard', 'messaging.operation.type': 'send', 'switchboard.event.name': eventName });
  }
  return span;
}

export interface DeliveryToTrace {
  delivery_id: string;
  subscriber_id: string;
  subscriber_type: string;
  attempts: number;
  event: { event_id: string; event_name: string; traceparent?: string | null };
}

/** One attempt of a delivery, continuing the trace stored with its event (a root span without one). */
export function startDeliverySpan(d: DeliveryToTrace, serverId: string): Span {
  const tp = d.event.traceparent;
  const parent: Context = tp ? propagation.extract(ROOT_CONTEXT, { traceparent: tp }) : ROOT_CONTEXT;
  const span = tracer.startSpan('deliver', CONSUMER, parent);
  if (span.isRecording()) {
    span.updateName(`deliver ${d.event.event_name} to ${d.subscriber_id}`);
    span.setAttributes({
      'messaging.system': 'switchboard',
      'messaging.operation.type': 'process',
      'switchboard.event.name': d.event.event_name,
      'switchboard.event.id': d.event.event_id,
      'switchboard.delivery.id': d.delivery_id,
      'switchboard.subscriber.id': d.subscriber_id,
      'switchboard.subscriber.type': d.subscriber_type,
      'switchboard.delivery.attempt': d.attempts,
      'switchboard.server.id': serverId,
    });
  }
  return span;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead_letter' | 'lease_lost';

export function recordDeliveryOutcome(span: Span, outcome: DeliveryOutcome, error?: string): void {
  if (!span.isRecording()) return;
  span.setAttribute('switchboard.delivery.outcome', outcome);
  if (outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? outcome });
}

/** A model call of an agent, a child of the active span (the delivery). */
export function startModelSpan(provider: string, model: string | undefined): Span {
  const span = tracer.startSpan('chat', CLIENT);
  if (span.isRecording()) {
    span.updateName(model ? `chat ${model}` : 'chat');
    span.setAttributes({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, ...(model ? { 'gen_ai.request.model': model } : {}) });
  }
  return span;
}

/** The model's answer: the model that answered and, where the provider reports them, token counts. */
export function recordModelReply(span: Span, reply: { model: string; raw: Record<string, unknown> }): void {
  if (!span.isRecording()) return;
  span.setAttribute('gen_ai.response.model', reply.model);
  const usage = reply.raw.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; input_tokens?: unknown; output_tokens?: unknown } | undefined;
  const input = usage?.prompt_tokens ?? usage?.input_tokens;
  const output = usage?.completion_tokens ?? usage?.output_tokens;
  if (typeof input === 'number') span.setAttribute('gen_ai.usage.input_tokens', input);
  if (typeof output === 'number') span.setAttribute('gen_ai.usage.output_tokens', output);
}

/** A tool call on an MCP server, a child of the active span. */
export function startToolSpan(server: string, tool: string): Span {
  const span = tracer.startSpan('tools/call', CLIENT);
  if (span.isRecording()) {
    span.updateName(`tools/call ${tool}`);
    span.setAttributes({ 'rpc.system': 'jsonrpc', 'rpc.method': 'tools/call', 'switchboard.tool.server': server, 'switchboard.tool.name': tool });
  }
  return span;
}

export function recordToolOutcome(span: Span, outcome: 'ok' | 'tool_error' | 'timeout', error?: string): void {
  if (!span.isRecording()) return;
  span.setAttribute('switchboard.tool.outcome', outcome);
  if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? outcome });
}
