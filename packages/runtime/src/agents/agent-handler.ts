/**
 * An agent subscriber answers a delivery with one turn: it asks the model (through the provider
 * interface), runs the tool calls the model asks for, parses the final answer and records the turn
 * in the session its scope selects. A failed model call or unparseable output is recorded on the
 * turn, logged, and fails the attempt so the dispatcher retries or dead-letters it.
 */
import type { StoreTx } from '@switchboard/store';
import type { AgentDefinition } from '../bundle/schema';
import { HandlerFailure } from '../handler-failure';
import type { DeliveryContext, Emit, HandlerOutcome, SubscriberHandler } from '../handler';
import { newId } from '../ids';
import { validatePayload } from '../payload-schema';
import { ModelError, type ChatMessage, type ModelReply } from '../providers/provider';
import { failSpan, recordModelReply, startModelSpan } from '../tracing';
import { findOrOpenSession, scopeKeyFor } from './sessions';

const MAX_MODEL_ROUNDS = 4;
const HISTORY_TURNS = 6;

export interface TurnToolCall {
  tool_call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  result?: unknown;
  error?: string;
  latency_ms?: number;
}

interface TurnDraft {
  turn_id: string;
  latency_ms: number;
  parse_ok: boolean;
  error: string | null;
  request_payload: Record<string, unknown>;
  response_payload: Record<string, unknown> | null;
  tool_calls: TurnToolCall[];
  turn_blocks: Record<string, unknown>[];
  started_at: string;
  completed_at: string;
  messages_added: number;
}

export interface AgentAnswer {
  action: 'emit' | 'none';
  payload?: Record<string, unknown>;
  summary?: string;
}

function systemPrompt(agent: AgentDefinition): string {
  const emits = agent.emit
    ? `When the event calls for it, answer {"action":"emit","payload":{...},"summary":"..."} and the runtime publishes "${agent.emit}" with that payload.`
    : 'You publish no events.';
  return [
    agent.system_prompt ?? `You are ${agent.agent_id}, a ${agent.type} agent. ${agent.role}`,
    `Answer with one JSON object only: {"action":"none","summary":"..."} when nothing should happen. ${emits}`,
  ].join('\n');
}

export function parseAnswer(content: string | null): { ok: true; answer: AgentAnswer } | { ok: false; error: string } {
  if (content === null || content.trim() === '') return { ok: false, error: 'model returned no content' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return { ok: false, error: `model output is not JSON: ${JSON.stringify(content.slice(0, 120))}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, error: 'model output is not a JSON object' };
  const p = parsed as Record<string, unknown>;
  if (p.action !== 'emit' && p.action !== 'none') return { ok: false, error: `model output has action ${JSON.stringify(p.action)}; expected "emit" or "none"` };
  if (p.action === 'emit' && (typeof p.payload !== 'object' || p.payload === null || Array.isArray(p.payload)))
    return { ok: false, error: 'model output has action "emit" without an object payload' };
  return {
    ok: true,
    answer: { action: p.action, payload: p.payload as Record<string, unknown> | undefined, summary: typeof p.summary === 'string' ? p.summary : undefined },
  };
}

export class AgentHandler implements SubscriberHandler {
  constructor(private readonly agent: AgentDefinition) {}

  async handle(ctx: DeliveryContext): Promise<HandlerOutcome> {
    const { services, event, delivery, attempt } = ctx;
    const { store, clock, log, provider, tools, bundle } = services;
    const agent = this.agent;
    const component = `agent.${agent.agent_id}`;
    const startedAt = clock.now();
    const t0 = performance.now();

    await store.agentWrites.setStatus(agent.agent_id, 'busy', startedAt.toISOString());

    const existing = await store.agentWrites.activeSession(agent.agent_id, scopeKeyFor(agent, event));
    const history: ChatMessage[] = [];
    if (existing && agent.conversation_mode === 'chat') {
      const prior = await store.agentWrites.parsedTurns(existing.session_id, HISTORY_TURNS);
      for (const t of prior.reverse()) {
        const req = t.request_payload ? (JSON.parse(t.request_payload) as { user?: string }) : {};
        const res = t.response_payload ? (JSON.parse(t.response_payload) as { content?: string }) : {};
        if (req.user) history.push({ role: 'user', content: req.user });
        if (res.content) history.push({ role: 'assistant', content: res.content });
      }
    }

    const userMessage = JSON.stringify({ event: event.event_name, event_id: event.event_id, entity_id: event.entity_id, payload: event.payload });
    const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(agent) }, ...history, { role: 'user', content: userMessage }];
    const toolSpecs = agent.tools.map((t) => tools.describe(t)).filter((t): t is NonNullable<typeof t> => !!t).map((t) => ({ name: t.name, description: t.description }));
    const blocks: Record<string, unknown>[] = [{ type: 'input', role: 'user', text: userMessage }];
    const toolCalls: TurnToolCall[] = [];
    const toolResults: Record<string, unknown> = {};
    let reply: ModelReply | undefined;
    let modelError: ModelError | Error | undefined;
    let model = '';
    const firstMessageIndex = messages.length - 1;

    try {
      for (let round = 0; round < MAX_MODEL_ROUNDS; round++) {
        const modelSpan = startModelSpan(provider.name, agent.model);
        try {
          reply = await provider.complete({ agent, messages, tools: toolSpecs, trigger: { event_id: event.event_id, event_name: event.event_name, payload: event.payload, attempt }, toolResults, signal: ctx.signal });
          recordModelReply(modelSpan, reply);
        } catch (err) {
          failSpan(modelSpan, err);
          throw err;
        } finally {
          modelSpan.end();
        }
        model = reply.model;
        if (reply.tool_calls.length === 0) break;
        messages.push({ role: 'assistant', content: reply.content, tool_calls: reply.tool_calls });
        for (const call of reply.tool_calls) {
          blocks.push({ type: 'tool_use', tool_call_id: call.id, tool: call.name, arguments: call.arguments });
          const server = tools.serverFor(call.name);
          const allowed = agent.tools.includes(call.name);
          let record: TurnToolCall;
          if (!server || !allowed) {
            record = { tool_call_id: call.id, tool: call.name, arguments: call.arguments, error: `tool "${call.name}" is not available to ${agent.agent_id}`, latency_ms: 0 };
          } else {
            const outcome = await tools.call(server, call.name, call.arguments, {
              attempt,
              signal: ctx.signal,
              timeoutMs: 5_000,
              event_id: event.event_id,
              run_id: event.run_id,
              delivery_id: delivery.delivery_id,
              entity_id: event.entity_id,
              session_id: existing?.session_id ?? null,
            });
            record = outcome.ok
              ? { tool_call_id: call.id, tool: call.name, arguments: call.arguments, result: outcome.result, latency_ms: outcome.latency_ms }
              : { tool_call_id: call.id, tool: call.name, arguments: call.arguments, error: outcome.error, latency_ms: outcome.latency_ms };
          }
          toolCalls.push(record);
          toolResults[call.name] = record.result ?? { error: record.error };
          blocks.push({ type: 'tool_result', tool_call_id: call.id, ...(record.error ? { error: record.error } : { result: record.result }) });
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(record.result ?? { error: record.error }) });
        }
      }
    } catch (err) {
      modelError = err instanceof Error ? err : new Error(String(err));
    }

    const completedAt = clock.now();
    const latency_ms = Math.max(0, Math.round(performance.now() - t0));
    const draft: TurnDraft = {
      turn_id: newId('turn', completedAt),
      latency_ms,
      parse_ok: false,
      error: null,
      request_payload: { provider: provider.name, model, user: userMessage, messages, tools: toolSpecs.map((t) => t.name), attempt },
      response_payload: reply ? { model: reply.model, content: reply.content, raw: reply.raw } : null,
      tool_calls: toolCalls,
      turn_blocks: blocks,
      started_at: startedAt.toISOString(),
      completed_at: completedAt.toISOString(),
      messages_added: messages.length - firstMessageIndex + (reply && reply.tool_calls.length === 0 ? 1 : 0),
    };

    const logIds = { event_id: event.event_id, run_id: event.run_id, delivery_id: delivery.delivery_id, entity_id: event.entity_id };

    if (modelError) {
      const code = modelError instanceof ModelError ? modelError.code : 'MODEL_ERROR';
      const aborted = ctx.signal.aborted;
      draft.error = aborted ? `turn aborted: ${modelError.message}` : modelError.message;
      blocks.push({ type: 'error', code, message: draft.error });
      await log.write({ level: 'error', component, error_code: code, message: `${agent.agent_id} model call failed on attempt ${attempt}: ${draft.error}`, ...logIds });
      throw new HandlerFailure(draft.error, {
        reasonCode: 'model_error',
        failureType: aborted ? 'timeout' : 'handler_error',
        retryable: modelError instanceof ModelError ? modelError.retryable : true,
        component,
        errorCode: code,
        logged: true,
        record: (trx, fctx) => this.recordTurn(trx, ctx, draft, fctx.final ? 'error' : 'idle'),
      });
    }

    const parsed = parseAnswer(reply?.content ?? null);
    if (!parsed.ok) {
      draft.error = `unparseable model output: ${parsed.error}`;
      blocks.push({ type: 'text', text: reply?.content ?? '' }, { type: 'error', code: 'MODEL_OUTPUT_UNPARSEABLE', message: parsed.error });
      await log.write({ level: 'warn', component, error_code: 'MODEL_OUTPUT_UNPARSEABLE', message: `${agent.agent_id} output did not parse on attempt ${attempt}: ${parsed.error}`, ...logIds });
      throw new HandlerFailure(draft.error, {
        reasonCode: 'output_unparseable',
        component,
        errorCode: 'MODEL_OUTPUT_UNPARSEABLE',
        logged: true,
        record: (trx, fctx) => this.recordTurn(trx, ctx, draft, fctx.final ? 'error' : 'idle'),
      });
    }

    draft.parse_ok = true;
    const answer = parsed.answer;
    blocks.push({ type: 'text', text: reply?.content ?? '' });
    if (answer.action === 'emit') {
      if (!agent.emit) {
        draft.parse_ok = true;
        blocks.push({ type: 'note', text: `${agent.agent_id} asked to emit but declares no event; ignored` });
      } else {
        const schema = bundle.definition.events[agent.emit]!.payload_schema;
        const issues = validatePayload(schema, answer.payload ?? {});
        if (issues.length > 0) {
          draft.parse_ok = false;
          draft.error = `model payload for ${agent.emit} is invalid: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`;
          await log.write({ level: 'warn', component, error_code: 'MODEL_OUTPUT_INVALID', message: draft.error, ...logIds });
          throw new HandlerFailure(draft.error, {
            reasonCode: 'output_invalid',
            component,
            errorCode: 'MODEL_OUTPUT_INVALID',
            logged: true,
            record: (trx, fctx) => this.recordTurn(trx, ctx, draft, fctx.final ? 'error' : 'idle'),
          });
        }
        blocks.push({ type: 'emit', event_name: agent.emit, payload: answer.payload });
      }
    }

    return {
      apply: async (trx, emit: Emit) => {
        await this.recordTurn(trx, ctx, draft, 'idle');
        if (answer.action === 'emit' && agent.emit) await emit(agent.emit, answer.payload ?? {});
      },
    };
  }

  private async recordTurn(trx: StoreTx, ctx: DeliveryContext, draft: TurnDraft, agentStatus: 'idle' | 'error'): Promise<void> {
    const now = ctx.services.clock.now();
    const { store } = ctx.services;
    const session = await findOrOpenSession(store, trx, this.agent, ctx.event, now);
    await store.agentWrites.recordTurn(trx, {
      turn: {
        turn_id: draft.turn_id,
        session_id: session.session_id,
        turn_index: session.turn_count,
        latency_ms: draft.latency_ms,
        parse_ok: draft.parse_ok ? 1 : 0,
        trigger_event_id: ctx.event.event_id,
        trigger_event_type: ctx.event.event_name,
        error: draft.error,
        request_payload: JSON.stringify(draft.request_payload),
        response_payload: draft.response_payload ? JSON.stringify(draft.response_payload) : null,
        tool_calls: JSON.stringify(draft.tool_calls),
        turn_blocks: JSON.stringify(draft.turn_blocks),
        started_at: draft.started_at,
        completed_at: draft.completed_at,
      },
      messages_added: draft.messages_added,
      agent: { agent_id: this.agent.agent_id, status: agentStatus, updated_at: now.toISOString() },
      delivery_id: ctx.delivery.delivery_id,
    });
  }
}
