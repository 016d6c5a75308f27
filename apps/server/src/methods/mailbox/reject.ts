/** Rejects a pending item with a reason: no downstream event; the decision and its history entry commit together. */
import type { DecisionOutcome } from '@switchboard/runtime';
import type { Handler } from '../../rpc/handler';

export const mailboxReject: Handler<'mailbox.reject'> = async (params, ctx) => {
  const toResult = (outcome: DecisionOutcome) => ({ ...outcome, idempotency_replayed: false });
  const outcome = await ctx.runtime.rejectMailboxItem({ mailbox_id: params.mailbox_id, reason: params.reason, reason_code: params.reason_code, actorTokenId: ctx.principal.tokenId }, ctx.mutation?.answerWith(toResult));
  return toResult(outcome);
};
