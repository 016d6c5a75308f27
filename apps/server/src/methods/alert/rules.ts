import type { Handler } from '../../rpc/handler';
import { ruleShaper } from '../../records/alert';

export const alertRules: Handler<'alert.rules'> = async (_params, ctx) => {
  const [rules, shape] = await Promise.all([ctx.store.alerts.rules(), ruleShaper(ctx)]);
  return { items: rules.map(shape) };
};
