import { RpcError } from '@switchboard/contract';
import type { Handler } from '../../rpc/handler';

export const runtimeIncidentActivity: Handler<'runtime.incident_activity'> = async (params, ctx) => {
  const rows = await ctx.runtime.incidents.activity(params.incident_id);
  if (!rows) throw new RpcError('NOT_FOUND', `No incident ${params.incident_id}`, { resource: 'incident', id: params.incident_id });
  return {
    activity: rows.map((r) => ({
      ts: r.ts,
      actor_token_id: r.actor_token_id,
      ...(r.actor_token_name ? { actor_token_name: r.actor_token_name } : {}),
      action: r.action,
      ...(r.note ? { note: r.note } : {}),
      ...(r.ignore_until ? { ignore_until: r.ignore_until } : {}),
      ...(r.ignore_occurrences !== null ? { ignore_occurrences: Number(r.ignore_occurrences) } : {}),
    })),
  };
};
