import type { AlertDestinationRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { destinationResult } from './records';

export const alertDestinations: Handler<'alert.destinations'> = async (_params, ctx) => {
  const destinations = await ctx.store.alerts.destinations();
  return { items: destinations.map(destinationResult) };
};

export const alertDestinationCreate: Handler<'alert.destination_create'> = async (params, ctx) => {
  // The stored answer (an idempotent replay's) never holds the secret: it is shown once.
  const answer = ctx.mutation?.answerWith((d: AlertDestinationRecord) => ({ destination: destinationResult(d) }));
  const { destination, secret } = await ctx.runtime.alerts.config.createDestination(
    { name: params.name, kind: params.kind, url: params.url, createdBy: ctx.principal.userName },
    answer,
  );
  return { destination: destinationResult(destination), ...(secret ? { secret } : {}) };
};

export const alertDestinationDelete: Handler<'alert.destination_delete'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((id: string) => ({ destination_id: id, deleted: true as const }));
  await ctx.runtime.alerts.config.deleteDestination(params.destination_id, answer);
  return { destination_id: params.destination_id, deleted: true };
};
