import type { AlertNoticeRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { noticeResult } from '../../records/alert';

export const alertTest: Handler<'alert.test'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((n: AlertNoticeRecord) => ({ notice: noticeResult(n) }));
  const notice = await ctx.runtime.alerts.config.sendTest(params.destination_id, ctx.principal.userName, answer);
  return { notice: noticeResult(notice) };
};
