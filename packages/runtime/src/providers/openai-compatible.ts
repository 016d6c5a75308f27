/**
 * A provider for any OpenAI-compatible chat completions endpoint (POST {baseUrl}/chat/completions).
 * Tools are offered as functions; the reply's tool calls come back with parsed arguments.
 */
import { ModelError, type ChatMessage, type ModelProvider, type ModelReply, type ModelRequest } from './provider';

export interface OpenAiCompatibleOptions {
  baseUrl: string;
  apiKey?: string;
  model?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function toWire(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
    return {
      role: 'assistant',
      content: message.content,
      tool_calls: message.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
    };
  }
  return message as unknown as Record<string, unknown>;
}

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name = 'openai-compatible';
  private readonly baseUrl: string;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const model = request.agent.model ?? this.options.model ?? 'gpt-4o-mini';
    const body: Record<string, unknown> = {
      model,
      messages: request.messages.map(toWire),
      response_format: { type: 'json_object' },
    };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: { type: 'object', additionalProperties: true } },
      }));
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 60_000);
    const signal = AbortSignal.any([timeout, request.signal]);
    const doFetch = this.options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(`${this.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (timeout.aborted) throw new ModelError(`${model}: no response within ${this.options.timeoutMs ?? 60_000} ms`, 'MODEL_TIMEOUT', true);
      throw new ModelError(`${model}: cannot reach ${this.baseUrl}: ${(err as Error).message}`, 'MODEL_UNAVAILABLE', true);
    }
    const text = await response.text();
    if (!response.ok) {
      const retryable = response.status === 429 || response.status >= 500;
      throw new ModelError(`${model}: HTTP ${response.status} from ${this.baseUrl}/chat/completions: ${text.slice(0, 300)}`, 'MODEL_HTTP_ERROR', retryable);
    }
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ModelError(`${model}: response body is not JSON`, 'MODEL_BAD_RESPONSE', true);
    }
    const choice = (raw.choices as { message?: { content?: string | null; tool_calls?: WireToolCall[] } }[] | undefined)?.[0];
    if (!choice?.message) throw new ModelError(`${model}: response has no choices[0].message`, 'MODEL_BAD_RESPONSE', true);
    const tool_calls = (choice.message.tool_calls ?? []).map((c) => {
      let args: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(c.function.arguments || '{}');
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
      } catch {
        args = { _unparseable_arguments: c.function.arguments };
      }
      return { id: c.id, name: c.function.name, arguments: args };
    });
    return { model: typeof raw.model === 'string' ? raw.model : model, content: choice.message.content ?? null, tool_calls, raw };
  }
}
