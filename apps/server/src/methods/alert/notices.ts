import { keysetPage } from '../../pagination/keyset-page';
import { alertNoticePosition } from '../../pagination/positions';
import { noticeResult } from '../../records/alert';
import type { Handler } from '../../rpc/handler';

/** alert.notices: newest first; the cursor carries the last notice shown and is bound to the filters. */
export const alertNotices: Handler<'alert.notices'> = async (params, ctx) => {
  const filter = { ruleId: params.rule_id, destinationId: params.destination_id, status: params.status, subjectId: params.subject_id, since: params.since };
  const binding = Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, v ?? null]));
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'alert.notices', binding, position: alertNoticePosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.store.alerts.notices.page(filter, { limit, after }),
  );
  return { items: page.notices.map(noticeResult), ...nextCursor };
};
