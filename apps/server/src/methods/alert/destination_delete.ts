import type { Handler } from '../../rpc/handler';

export const alertDestinationDelete: Handler<'alert.destination_delete'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((id: string) => ({ destination_id: id, deleted: true as const }));
  await ctx.runtime.alerts.config.deleteDestination(params.destination_id, answer);
  return { destination_id: params.destination_id, deleted: true };
};
