import type { AlertRuleRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { ruleShaper } from '../../records/alert';

export const alertRuleUpdate: Handler<'alert.rule_update'> = async (params, ctx) => {
  const shape = await ruleShaper(ctx);
  const { rule_id, idempotency_key: _key, ...changes } = params;
  const answer = ctx.mutation?.answerWith((rule: AlertRuleRecord) => ({ rule: shape(rule) }));
  const rule = await ctx.runtime.alerts.config.updateRule(rule_id, changes, answer);
  return { rule: shape(rule) };
};
