import { isRole, RpcError } from '@switchboard/contract';
import { INCIDENT_MIN_LEVEL_RANK } from '@switchboard/store';
import { incidentId, parseIncidentId } from '../../records/incident';
import { omitAbsent } from '../../records/omit-absent';
import type { Handler } from '../../rpc/handler';

export const runtimeLookup: Handler<'runtime.lookup'> = async (params, ctx) => {
  const id = params.id.trim();
  // An incident is a group, not a row: its id names it while the group has a warn-or-worse record.
  const group = parseIncidentId(id);
  if (group && (await ctx.store.incidents.exists(group))) return { kind: 'incident', id, incident_id: id };
  const found = id ? await ctx.store.lookup.find(id) : undefined;
  if (!found) throw new RpcError('NOT_FOUND', `No record has the id ${params.id}`, { id: params.id });
  const incident =
    found.kind === 'log' && found.component !== undefined && (found.level_rank ?? 0) >= INCIDENT_MIN_LEVEL_RANK
      ? incidentId({ component: found.component, error_code: found.error_code ?? null, cause_key: found.cause_key ?? '' })
      : undefined;
  return omitAbsent({
    kind: found.kind,
    id: found.id,
    event_id: found.event_id,
    session_id: found.session_id,
    incident_id: incident,
    name: found.name,
    user_id: found.user_id,
    user_name: found.user_name,
    role: isRole(found.role) ? found.role : undefined,
  });
};
