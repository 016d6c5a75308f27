import { RpcError } from '@switchboard/contract';
import type { AlertSilenceRecord } from '@switchboard/store';
import { parseIncidentId } from '../../records/incident';
import type { Handler } from '../../rpc/handler';
import { silenceResult } from './records';

export const alertSilences: Handler<'alert.silences'> = async (params, ctx) => {
  const now = ctx.store.clock.now().toISOString();
  const silences = await ctx.store.alerts.silences(now, params.include_ended ?? false);
  return { items: silences.map((s) => silenceResult(s, now)) };
};

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

export const alertSilenceEnd: Handler<'alert.silence_end'> = async (params, ctx) => {
  const now = () => ctx.store.clock.now().toISOString();
  const answer = ctx.mutation?.answerWith((o: { silence: AlertSilenceRecord; ended: boolean }) => ({ silence: silenceResult(o.silence, now()), already_ended: !o.ended }));
  const outcome = await ctx.runtime.alerts.config.endSilence(params.silence_id, answer);
  return { silence: silenceResult(outcome.silence, now()), already_ended: !outcome.ended };
};
