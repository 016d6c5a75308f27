/**
 * The default, offline model provider. Deterministic: the first script rule of the agent whose
 * `when` holds for the trigger payload answers. A rule first asks for its tool calls, then (once
 * their results are in) gives its reply as JSON; on the attempts a rule lists it fails like a
 * real provider would, or answers in free text that does not parse.
 */
import { evaluateCondition } from '../conditions';
import { renderObject } from '../templates';
import type { ScriptRule } from '../bundle/schema';
import { ModelError, type ModelProvider, type ModelReply, type ModelRequest } from './provider';

const NO_RULE_REPLY = { action: 'none', summary: 'No scripted rule matched this event; nothing to do.' };

export class ScriptedProvider implements ModelProvider {
  readonly name = 'scripted';

  async complete(request: ModelRequest): Promise<ModelReply> {
    const { agent, trigger } = request;
    const model = `scripted/${agent.model_tier}`;
    const rule = agent.script.find((r) => !r.when || evaluateCondition(r.when, trigger.payload).passed);
    await delay(rule?.latency_ms ?? 10, request.signal);
    if (!rule) return this.reply(model, JSON.stringify(NO_RULE_REPLY));
    if (rule.error && (!rule.fail_attempts || rule.fail_attempts.includes(trigger.attempt))) {
      throw new ModelError(`${model}: ${rule.error}`, 'MODEL_UNAVAILABLE', true);
    }
    const pendingCalls = rule.tool_calls.filter((c) => !(c.tool in request.toolResults));
    if (pendingCalls.length > 0) {
      const roots = { payload: trigger.payload, tools: request.toolResults };
      return {
        model,
        content: null,
        tool_calls: pendingCalls.map((c, i) => ({ id: `call_${trigger.event_id.slice(-8)}_${trigger.attempt}_${i}`, name: c.tool, arguments: renderObject(c.arguments, roots) })),
        raw: { model, finish_reason: 'tool_calls', rule: ruleLabel(rule) },
      };
    }
    if (rule.raw_output !== undefined && (!rule.unparseable_attempts || rule.unparseable_attempts.includes(trigger.attempt))) {
      return this.reply(model, rule.raw_output, rule);
    }
    const reply = renderObject(rule.reply, { payload: trigger.payload, tools: request.toolResults });
    return this.reply(model, JSON.stringify(reply), rule);
  }

  private reply(model: string, content: string, rule?: ScriptRule): ModelReply {
    return { model, content, tool_calls: [], raw: { model, finish_reason: 'stop', ...(rule ? { rule: ruleLabel(rule) } : {}) } };
  }
}

function ruleLabel(rule: ScriptRule): string {
  return rule.when ?? '(default)';
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
