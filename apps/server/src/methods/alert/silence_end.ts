import type { AlertSilenceRecord } from '@switchboard/store';
import { silenceResult } from '../../records/alert';
import type { Handler } from '../../rpc/handler';

export const alertSilenceEnd: Handler<'alert.silence_end'> = async (params, ctx) => {
  const now = () => ctx.store.clock.now().toISOString();
  const answer = ctx.mutation?.answerWith((o: { silence: AlertSilenceRecord; ended: boolean }) => ({ silence: silenceResult(o.silence, now()), already_ended: !o.ended }));
  const outcome = await ctx.runtime.alerts.config.endSilence(params.silence_id, answer);
  return { silence: silenceResult(outcome.silence, now()), already_ended: !outcome.ended };
};
