/**
 * In-process MCP tool servers. They answer MCP `tools/call` requests with MCP result shapes and
 * behave like real providers: a little latency, and failures and hangs that are deterministic per
 * (server, tool, arguments, attempt) so the demo reliably shows retries and dead letters and a
 * test can predict them.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@switchboard/contract';
import type { ToolServerDefinition } from '../bundle/schema';

export interface McpCallRequest {
  jsonrpc: '2.0';
  id: string;
  method: 'tools/call';
  params: { name: string; arguments: Record<string, unknown> };
}

export interface McpCallResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A number in [0, 1) fixed by its inputs. */
export function unitHash(...parts: string[]): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

function money(n: number): number {
  return Math.round(n * 100) / 100;
}

type ToolImpl = (args: Record<string, unknown>) => Record<string, unknown>;

/** What the simulated providers answer; unknown tools acknowledge the call. */
const TOOL_IMPLEMENTATIONS: Record<string, ToolImpl> = {
  refund: (args) => {
    const amount = Number(args.amount);
    if (!Number.isFinite(amount) || amount <= 0) throw new Error(`invalid refund amount ${JSON.stringify(args.amount)}`);
    const ref = createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, 12);
    return { refund_id: `re_${ref}`, status: 'succeeded', amount: money(amount), currency: args.currency ?? 'EUR' };
  },
  lookup_order: (args) => {
    const orderId = String(args.order_id ?? args.ticket_id ?? 'unknown');
    const u = unitHash('order', orderId);
    const items = 1 + Math.floor(unitHash('items', orderId) * 4);
    return {
      order_id: orderId,
      total: money(15 + u * 885),
      currency: 'EUR',
      items,
      status: u < 0.15 ? 'in_transit' : 'delivered',
      customer_tier: u > 0.8 ? 'gold' : 'standard',
    };
  },
  send_customer_note: (args) => ({ message_id: `msg_${createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, 10)}`, queued: true }),
  score_refund_risk: (args) => {
    const u = unitHash('risk', canonicalJson(args));
    return { risk_score: Math.round(u * 100) / 100, signals: u > 0.7 ? ['recent_account', 'high_value'] : [] };
  },
};

export class SimulatedMcpServer {
  /** An operator turns faults off to "fix" the provider (and on again to break it). */
  faultsOn = true;

  constructor(
    readonly name: string,
    readonly definition: ToolServerDefinition,
  ) {}

  /** Answers one MCP request; `attempt` lets faults differ between a call and its retry. */
  async handle(request: McpCallRequest, attempt: number, signal: AbortSignal): Promise<McpCallResult> {
    const { name: tool, arguments: args } = request.params;
    if (!this.definition.tools.includes(tool)) {
      return { isError: true, content: [{ type: 'text', text: `unknown tool "${tool}"` }] };
    }
    const key = canonicalJson(args);
    const roll = unitHash(this.name, tool, key, String(attempt));
    const latency = 5 + Math.floor(unitHash('latency', this.name, tool, key, String(attempt)) * 40);
    await sleep(latency, signal);
    if (this.faultsOn && roll < this.definition.failure_rate) {
      const reasons = ['upstream returned 502 Bad Gateway', 'connection reset by peer', 'provider rate limit exceeded (429)'];
      const reason = reasons[Math.floor(unitHash('reason', key, String(attempt)) * reasons.length)]!;
      return { isError: true, content: [{ type: 'text', text: reason }] };
    }
    if (this.faultsOn && roll < this.definition.failure_rate + this.definition.timeout_rate) {
      await sleep(Number.POSITIVE_INFINITY, signal);
    }
    const impl = TOOL_IMPLEMENTATIONS[tool] ?? ((a: Record<string, unknown>) => ({ accepted: true, tool, arguments: a }));
    try {
      const result = impl(args);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done() {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      if (timer) clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
