import type { Handler } from '../../rpc/handler';
import { destinationResult } from '../../records/alert';

export const alertDestinations: Handler<'alert.destinations'> = async (_params, ctx) => {
  const destinations = await ctx.store.alerts.destinations();
  return { items: destinations.map(destinationResult) };
};
