/**
 * Approves a pending item and emits its approval route's event in the same transaction;
 * STALE_DECISION_SHEET when expected_entity_revision is behind the entity.
 */
import type { DecisionOutcome } from '@switchboard/runtime';
import type { Handler } from '../../rpc/handler';

export const mailboxApprove: Handler<'mailbox.approve'> = async (params, ctx) => {
  const toResult = (outcome: DecisionOutcome) => ({ ...outcome, idempotency_replayed: false });
  const outcome = await ctx.runtime.approveMailboxItem(
    {
      mailbox_id: params.mailbox_id,
      reason: params.reason,
      decision_payload: params.decision_payload,
      expected_entity_revision: params.expected_entity_revision,
      actorTokenId: ctx.principal.tokenId,
    },
    ctx.keyedCall?.answerWith(toResult),
  );
  return toResult(outcome);
};
