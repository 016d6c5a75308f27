import { keysetPage } from '../../pagination/keyset-page';
import { mailboxPosition } from '../../pagination/positions';
import { toMailboxItem } from '../../records/mailbox-item';
import type { Handler } from '../../rpc/handler';

export const mailboxList: Handler<'mailbox.list'> = async (params, ctx) => {
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'mailbox.list', binding: { filter: params.filter ?? {} }, position: mailboxPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.store.mailboxReads.page(params.filter ?? {}, { limit, after }),
  );
  return { items: page.items.map(toMailboxItem), ...nextCursor };
};
