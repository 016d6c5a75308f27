/**
 * Approves a pending item and emits its approval route's event in the same transaction;
 * STALE_DECISION_SHEET when expected_entity_revision is behind the entity; GATE_OVERRIDE_REQUIRED
 * when some of the entity's gates fail and no override_note says why approve anyway.
 */
import type { DecisionOutcome } from '@switchboard/runtime';
import type { Handler } from '../../rpc/handler';

export const mailboxApprove: Handler<'mailbox.approve'> = async (params, ctx) => {
  const toResult = (outcome: DecisionOutcome) => ({ ...outcome, idempotency_replayed: false });
  const outcome = await ctx.runtime.approveMailboxItem(
    {
      mailbox_id: params.mailbox_id,
      reason: params.reason,
      override_note: params.override_note,
      decision_payload: params.decision_payload,
      expected_entity_revision: params.expected_entity_revision,
      actorTokenId: ctx.principal.tokenId,
    },
    ctx.mutation?.answerWith(toResult),
  );
  return toResult(outcome);
};
