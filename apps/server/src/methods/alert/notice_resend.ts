import type { AlertNoticeRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { noticeResult } from '../../records/alert';

export const alertNoticeResend: Handler<'alert.notice_resend'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((n: AlertNoticeRecord) => ({ notice: noticeResult(n) }));
  const notice = await ctx.runtime.alerts.config.resend(params.notice_id, answer);
  return { notice: noticeResult(notice) };
};
