/**
 * The MCP client side: resolves a tool to its server, sends `tools/call`, enforces the caller's
 * timeout and logs every call under the server's component ("mcp.<server>").
 */
import type { LoadedBundle } from '../bundle/load';
import { newId } from '../ids';
import type { RuntimeLog } from '../runtime-log';
import { recordToolOutcome, startToolSpan } from '../tracing';
import { SimulatedMcpServer, type McpCallRequest } from './simulated-mcp';

export interface ToolCallContext {
  attempt: number;
  signal: AbortSignal;
  timeoutMs: number;
  event_id?: string;
  run_id?: string | null;
  delivery_id?: string;
  entity_id?: string | null;
  session_id?: string | null;
}

export type ToolCallOutcome =
  | { ok: true; server: string; result: Record<string, unknown>; latency_ms: number }
  | { ok: false; server: string; error: string; kind: 'tool_error' | 'timeout'; latency_ms: number };

export class ToolRegistry {
  private readonly servers = new Map<string, SimulatedMcpServer>();

  constructor(
    private readonly bundle: LoadedBundle,
    private readonly log: RuntimeLog,
  ) {
    for (const [name, def] of Object.entries(bundle.definition.tool_servers)) this.servers.set(name, new SimulatedMcpServer(name, def));
  }

  /** Every server, in bundle order, for the operator's view. */
  list(): SimulatedMcpServer[] {
    return [...this.servers.values()];
  }

  server(name: string): SimulatedMcpServer | undefined {
    return this.servers.get(name);
  }

  serverFor(tool: string): string | undefined {
    for (const [name, server] of this.servers) if (server.definition.tools.includes(tool)) return name;
    return undefined;
  }

  describe(tool: string): { name: string; description: string; server: string } | undefined {
    const server = this.serverFor(tool);
    if (!server) return undefined;
    return { name: tool, server, description: `${tool} on ${server} (${this.bundle.definition.tool_servers[server]?.description ?? 'MCP tool server'})` };
  }

  /** Traced: a span per call with the server, tool and outcome. */
  async call(serverName: string, tool: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const span = startToolSpan(serverName, tool);
    try {
      const outcome = await this.callUntraced(serverName, tool, args, ctx);
      recordToolOutcome(span, outcome.ok ? 'ok' : outcome.kind, outcome.ok ? undefined : outcome.error);
      return outcome;
    } finally {
      span.end();
    }
  }

  private async callUntraced(serverName: string, tool: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const server = this.servers.get(serverName);
    const component = serverName;
    const started = performance.now();
    const ids = { event_id: ctx.event_id, run_id: ctx.run_id, delivery_id: ctx.delivery_id, entity_id: ctx.entity_id, session_id: ctx.session_id };
    if (!server) {
      await this.log.write({ level: 'error', component, error_code: 'MCP_SERVER_UNKNOWN', message: `no MCP server named ${serverName}`, ...ids });
      return { ok: false, server: serverName, error: `no MCP server named ${serverName}`, kind: 'tool_error', latency_ms: 0 };
    }
    const request: McpCallRequest = { jsonrpc: '2.0', id: newId('mcp'), method: 'tools/call', params: { name: tool, arguments: args } };
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), ctx.timeoutMs);
    const signal = AbortSignal.any([timeout.signal, ctx.signal]);
    try {
      const response = await server.handle(request, ctx.attempt, signal);
      const latency_ms = Math.round(performance.now() - started);
      const text = response.content.map((c) => c.text).join('\n');
      if (response.isError) {
        await this.log.write({
          level: 'error',
          component,
          error_code: 'MCP_TOOL_ERROR',
          message: `tools/call ${tool} failed on attempt ${ctx.attempt}: ${text}`,
          ...ids,
        });
        return { ok: false, server: serverName, error: text, kind: 'tool_error', latency_ms };
      }
      await this.log.write({ level: 'debug', component, message: `tools/call ${tool} ok in ${latency_ms} ms`, ...ids });
      return { ok: true, server: serverName, result: response.structuredContent ?? { text }, latency_ms };
    } catch (err) {
      const latency_ms = Math.round(performance.now() - started);
      const timedOut = timeout.signal.aborted;
      const message = timedOut ? `tools/call ${tool} timed out after ${ctx.timeoutMs} ms (attempt ${ctx.attempt})` : `tools/call ${tool} aborted: ${(err as Error).message}`;
      await this.log.write({ level: timedOut ? 'error' : 'warn', component, error_code: timedOut ? 'MCP_TIMEOUT' : 'MCP_CALL_ABORTED', message, ...ids });
      return { ok: false, server: serverName, error: message, kind: 'timeout', latency_ms };
    } finally {
      clearTimeout(timer);
    }
  }
}
