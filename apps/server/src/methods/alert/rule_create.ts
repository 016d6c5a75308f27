import type { AlertRuleRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { ruleShaper } from '../../records/alert';

export const alertRuleCreate: Handler<'alert.rule_create'> = async (params, ctx) => {
  const shape = await ruleShaper(ctx);
  const answer = ctx.mutation?.answerWith((rule: AlertRuleRecord) => ({ rule: shape(rule) }));
  const rule = await ctx.runtime.alerts.config.createRule(params, answer);
  return { rule: shape(rule) };
};
