import type { Handler } from '../../rpc/handler';

/** runtime.incident_update: the runtime sets the state; the answer commits with it. */
export const runtimeIncidentUpdate: Handler<'runtime.incident_update'> = async (params, ctx) =>
  ctx.runtime.incidents.update(
    {
      incident_id: params.incident_id,
      state: params.state,
      note: params.note,
      ignore_until: params.ignore_until,
      ignore_occurrences: params.ignore_occurrences,
      actorTokenId: ctx.principal.tokenId,
    },
    ctx.mutation?.answerWith((r) => r),
  );
