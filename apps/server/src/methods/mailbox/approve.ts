/**
 * Approves a pending item as the calling person. The last approval its type needs (one unless the
 * bundle says more) emits its approval route's event in the same transaction; an earlier one
 * leaves the item pending. FORBIDDEN when the type does not let this person decide or they started
 * the run; ALREADY_APPROVED when they approved it before;
 * STALE_DECISION_SHEET when expected_entity_revision is behind the entity; GATE_OVERRIDE_REQUIRED
 * when some of the entity's gates fail and no override_note says why approve anyway.
 */
import type { DecisionOutcome } from '@switchboard/runtime';
import type { Handler } from '../../rpc/handler';
import { deciderOf } from '../../records/decider';

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
      decider: deciderOf(ctx.principal),
    },
    ctx.mutation?.answerWith(toResult),
  );
  return toResult(outcome);
};
