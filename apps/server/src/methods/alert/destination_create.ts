import type { AlertDestinationRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { destinationResult } from '../../records/alert';

export const alertDestinationCreate: Handler<'alert.destination_create'> = async (params, ctx) => {
  // The stored answer (an idempotent replay's) never holds the secret: it is shown once.
  const answer = ctx.mutation?.answerWith((d: AlertDestinationRecord) => ({ destination: destinationResult(d) }));
  const { destination, secret } = await ctx.runtime.alerts.config.createDestination(
    { name: params.name, kind: params.kind, url: params.url, createdBy: ctx.principal.userName },
    answer,
  );
  return { destination: destinationResult(destination), ...(secret ? { secret } : {}) };
};
