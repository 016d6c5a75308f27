import type { AlertRuleRecord } from '@switchboard/store';
import type { Handler, HandlerContext } from '../../rpc/handler';
import { ruleResult } from './records';

/** Each rule's latest active silence end, and every destination, to shape rules with. */
async function ruleShaper(ctx: HandlerContext): Promise<(rule: AlertRuleRecord) => ReturnType<typeof ruleResult>> {
  const now = ctx.store.clock.now().toISOString();
  const [destinations, silences] = await Promise.all([ctx.store.alerts.destinations(), ctx.store.alerts.silences(now, false)]);
  const silencedUntil = new Map<string, string>();
  for (const s of silences) {
    if (s.rule_id && (silencedUntil.get(s.rule_id) ?? '') < s.until) silencedUntil.set(s.rule_id, s.until);
  }
  return (rule) => ruleResult(rule, destinations, silencedUntil.get(rule.id));
}

export const alertRules: Handler<'alert.rules'> = async (_params, ctx) => {
  const [rules, shape] = await Promise.all([ctx.store.alerts.rules(), ruleShaper(ctx)]);
  return { items: rules.map(shape) };
};

export const alertRuleCreate: Handler<'alert.rule_create'> = async (params, ctx) => {
  const shape = await ruleShaper(ctx);
  const answer = ctx.mutation?.answerWith((rule: AlertRuleRecord) => ({ rule: shape(rule) }));
  const rule = await ctx.runtime.alerts.config.createRule(params, answer);
  return { rule: shape(rule) };
};

export const alertRuleUpdate: Handler<'alert.rule_update'> = async (params, ctx) => {
  const shape = await ruleShaper(ctx);
  const { rule_id, idempotency_key: _key, ...changes } = params;
  const answer = ctx.mutation?.answerWith((rule: AlertRuleRecord) => ({ rule: shape(rule) }));
  const rule = await ctx.runtime.alerts.config.updateRule(rule_id, changes, answer);
  return { rule: shape(rule) };
};

export const alertRuleDelete: Handler<'alert.rule_delete'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((id: string) => ({ rule_id: id, deleted: true as const }));
  await ctx.runtime.alerts.config.deleteRule(params.rule_id, answer);
  return { rule_id: params.rule_id, deleted: true };
};
