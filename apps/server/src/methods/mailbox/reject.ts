/** Rejects a pending item with a reason (FORBIDDEN when the type does not let this person decide): no downstream event; the decision and its history entry commit together. */
import type { DecisionOutcome } from '@switchboard/runtime';
import type { Handler } from '../../rpc/handler';
import { deciderOf } from '../../records/decider';

export const mailboxReject: Handler<'mailbox.reject'> = async (params, ctx) => {
  const toResult = (outcome: DecisionOutcome) => ({ ...outcome, idempotency_replayed: false });
  const outcome = await ctx.runtime.rejectMailboxItem({ mailbox_id: params.mailbox_id, reason: params.reason, reason_code: params.reason_code, actorTokenId: ctx.principal.tokenId, decider: deciderOf(ctx.principal) }, ctx.mutation?.answerWith(toResult));
  return toResult(outcome);
};
