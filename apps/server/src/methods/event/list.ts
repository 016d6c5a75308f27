import { keysetPage } from '../../pagination/keyset-page';
import { eventPosition } from '../../pagination/positions';
import { toStoredEvent } from '../../records/stored-event';
import type { Handler } from '../../rpc/handler';

export const eventList: Handler<'event.list'> = async (params, ctx) => {
  const binding = { filter: params.filter ?? {}, since: params.since, until: params.until };
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'event.list', binding, position: eventPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.store.events.page({ ...params.filter, since: params.since, until: params.until }, { limit, after }),
  );
  return { events: page.events.map(toStoredEvent), ...nextCursor, ...(page.payload_search ? { payload_search: page.payload_search } : {}) };
};
