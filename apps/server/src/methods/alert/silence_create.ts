import { RpcError } from '@switchboard/contract';
import type { AlertSilenceRecord } from '@switchboard/store';
import { silenceResult } from '../../records/alert';
import { parseIncidentId } from '../../records/incident';
import type { Handler } from '../../rpc/handler';

export const alertSilenceCreate: Handler<'alert.silence_create'> = async (params, ctx) => {
  if (params.incident_id !== undefined) {
    const key = parseIncidentId(params.incident_id);
    if (!key || !(await ctx.store.incidents.exists(key))) {
      throw new RpcError('NOT_FOUND', `No incident ${params.incident_id}`, { resource: 'incident', id: params.incident_id });
    }
  }
  const now = () => ctx.store.clock.now().toISOString();
  const answer = ctx.mutation?.answerWith((s: AlertSilenceRecord) => ({ silence: silenceResult(s, now()) }));
  const silence = await ctx.runtime.alerts.config.createSilence(
    { rule_id: params.rule_id, incident_id: params.incident_id, until: params.until, reason: params.reason, createdBy: ctx.principal.userName },
    answer,
  );
  return { silence: silenceResult(silence, now()) };
};
