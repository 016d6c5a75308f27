import { RpcError, type DecisionSheet } from '@switchboard/contract';
import { parseJsonObject } from '../../records/omit-absent';
import { toMailboxHistoryEntry, toMailboxItem } from '../../records/mailbox-item';
import type { Handler } from '../../rpc/handler';

export const mailboxGet: Handler<'mailbox.get'> = async (params, ctx) => {
  const found = await ctx.store.mailboxReads.get(params.mailbox_id);
  if (!found) throw new RpcError('NOT_FOUND', `No mailbox item ${params.mailbox_id}`, { resource: 'mailbox_item', id: params.mailbox_id });
  const item = toMailboxItem(found.item);
  // The runtime owns the decision sheet: downstream preview from the bundle, context from the entity store.
  const decision_sheet = await ctx.runtime.decisionSheet(params.mailbox_id);
  const decided = found.item.decided_sheet ? (JSON.parse(found.item.decided_sheet) as DecisionSheet) : undefined;
  const emitted = parseJsonObject(found.item.emitted_payload);
  const approval = await ctx.runtime.mailbox.approvalState(found.item);
  return {
    item,
    history: found.history.map(toMailboxHistoryEntry),
    decision_sheet,
    payload: item.payload,
    ...(decided ? { decided_sheet: decided } : {}),
    ...(emitted ? { emitted_payload: emitted } : {}),
    ...(found.item.emitted_event_id ? { emitted_event_id: found.item.emitted_event_id } : {}),
    reject_reasons: ctx.runtime.mailbox.rejectReasons(found.item.type),
    approvals: approval.approvals,
    deciders: approval.deciders,
    ...(approval.run_started_by_user_id ? { run_started_by_user_id: approval.run_started_by_user_id } : {}),
  };
};
