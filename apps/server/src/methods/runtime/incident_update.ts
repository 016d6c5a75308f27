import { RpcError, type Result } from '@switchboard/contract';
import { parseIncidentId } from '../../records/incident';
import type { Handler } from '../../rpc/handler';

/**
 * runtime.incident_update: sets an incident group's state. Ignore options belong to `ignored`
 * only; an incident id must name a group that has had at least one record.
 */
export const runtimeIncidentUpdate: Handler<'runtime.incident_update'> = async (params, ctx) => {
  const key = parseIncidentId(params.incident_id);
  if (!key || !(await ctx.store.incidents.exists(key))) {
    throw new RpcError('NOT_FOUND', `No incident ${params.incident_id}`, { resource: 'incident', id: params.incident_id });
  }
  if (params.state !== 'ignored' && (params.ignore_until !== undefined || params.ignore_occurrences !== undefined)) {
    throw new RpcError('INVALID_PARAMS', 'ignore_until and ignore_occurrences go with state "ignored" only', { field: params.ignore_until !== undefined ? 'ignore_until' : 'ignore_occurrences' });
  }
  const now = ctx.store.clock.now().toISOString();
  if (params.ignore_until !== undefined && params.ignore_until <= now) {
    throw new RpcError('INVALID_PARAMS', 'ignore_until must be in the future', { field: 'ignore_until' });
  }
  const result: Result<'runtime.incident_update'> = { incident_id: params.incident_id, state: params.state, regressed: false, state_changed_at: now };
  const answer = ctx.mutation?.answerWith((r: Result<'runtime.incident_update'>) => r);
  await ctx.store.incidents.setState(
    key,
    {
      state: params.state,
      actor_token_id: ctx.principal.tokenId,
      note: params.note?.trim() || null,
      ignore_until: params.ignore_until ?? null,
      ignore_occurrences: params.ignore_occurrences ?? null,
      now,
    },
    answer && ((trx) => answer(trx, result)),
  );
  // A resolved incident's next occurrence is a regression alert rules may notify.
  ctx.runtime.alerts.maker.incidentStateChanged();
  return result;
};
