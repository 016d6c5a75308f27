import { RpcError } from '@switchboard/contract';
import { toMailboxHistoryEntry, toMailboxItem } from '../../records/mailbox-item';
import type { Handler } from '../../rpc/handler';

export const mailboxGet: Handler<'mailbox.get'> = async (params, ctx) => {
  const found = await ctx.store.mailboxReads.get(params.mailbox_id);
  if (!found) throw new RpcError('NOT_FOUND', `No mailbox item ${params.mailbox_id}`, { resource: 'mailbox_item', id: params.mailbox_id });
  const item = toMailboxItem(found.item);
  // The runtime owns the decision sheet: downstream preview from the bundle, context from the entity store.
  const decision_sheet = await ctx.runtime.decisionSheet(params.mailbox_id);
  return { item, history: found.history.map(toMailboxHistoryEntry), decision_sheet, payload: item.payload };
};
