/**
 * The model provider interface agents talk to. Messages follow the OpenAI chat shape, which both
 * providers understand; the scripted provider also reads `trigger` to pick its rule.
 */
import type { AgentDefinition } from '../bundle/schema';

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ModelToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ModelToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  description: string;
}

export interface ModelRequest {
  agent: AgentDefinition;
  messages: ChatMessage[];
  tools: ToolSpec[];
  trigger: { event_id: string; event_name: string; payload: Record<string, unknown>; attempt: number };
  /** Results of the tool calls made so far in this turn, by tool name. */
  toolResults: Record<string, unknown>;
  signal: AbortSignal;
}

export interface ModelReply {
  model: string;
  content: string | null;
  tool_calls: ModelToolCall[];
  /** The provider's response as received, kept on the turn. */
  raw: Record<string, unknown>;
}

export class ModelError extends Error {
  constructor(
    message: string,
    readonly code: 'MODEL_UNAVAILABLE' | 'MODEL_HTTP_ERROR' | 'MODEL_TIMEOUT' | 'MODEL_BAD_RESPONSE',
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

export interface ModelProvider {
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}
