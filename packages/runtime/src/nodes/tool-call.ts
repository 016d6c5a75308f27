import type { NodeDefinition } from '../bundle/schema';
import { HandlerFailure } from '../handler-failure';
import type { DeliveryContext, HandlerOutcome, SubscriberHandler } from '../handler';
import { renderObject } from '../templates';

type ToolCallNode = Extract<NodeDefinition, { kind: 'tool_call' }>;

/** Calls a tool on an MCP server; a failed or timed-out call fails the attempt (retry, then dead letter). */
export class ToolCallHandler implements SubscriberHandler {
  constructor(
    private readonly nodeId: string,
    private readonly node: ToolCallNode,
  ) {}

  async handle(ctx: DeliveryContext): Promise<HandlerOutcome> {
    const { event, services, delivery } = ctx;
    const args = Object.keys(this.node.arguments).length === 0 ? { ...event.payload } : renderObject(this.node.arguments, { payload: event.payload });
    const outcome = await services.tools.call(this.node.tool_server, this.node.tool, args, {
      attempt: ctx.attempt,
      signal: ctx.signal,
      timeoutMs: this.node.timeout_ms,
      event_id: event.event_id,
      run_id: event.run_id,
      delivery_id: delivery.delivery_id,
      entity_id: event.entity_id,
    });
    if (!outcome.ok) {
      throw new HandlerFailure(`${this.node.tool_server} ${this.node.tool}: ${outcome.error}`, {
        failureType: outcome.kind === 'timeout' ? 'timeout' : 'handler_error',
        reasonCode: outcome.kind === 'timeout' ? 'tool_timeout' : 'tool_error',
        component: this.node.tool_server,
        errorCode: outcome.kind === 'timeout' ? 'MCP_TIMEOUT' : 'MCP_TOOL_ERROR',
        logged: true,
      });
    }
    const emitName = this.node.emit_on_success;
    if (!emitName) return {};
    const payload = this.node.emit_map ? renderObject(this.node.emit_map, { payload: event.payload, result: outcome.result }) : { ...event.payload, result: outcome.result };
    return { apply: async (_trx, emit) => void (await emit(emitName, payload)) };
  }
}
