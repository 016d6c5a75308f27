import type { Handler } from '../../rpc/handler';

export const alertRuleDelete: Handler<'alert.rule_delete'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((id: string) => ({ rule_id: id, deleted: true as const }));
  await ctx.runtime.alerts.config.deleteRule(params.rule_id, answer);
  return { rule_id: params.rule_id, deleted: true };
};
