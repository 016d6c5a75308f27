import type { Params, Result } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import { keysetPage } from '../../pagination/keyset-page';
import { eventPosition } from '../../pagination/positions';
import { toStoredEvent } from '../../records/stored-event';
import type { Handler } from '../../rpc/handler';

/** Reads in a reader thread where the server runs them and one should take it (reads/reader-threads.ts), else here. */
export const eventList: Handler<'event.list'> = (params, ctx) => (ctx.readers?.takesRead() ? ctx.readers.read('event.list', params) : readEventList(ctx.store, params));

/** One page of event.list from `store` (the server's, a bulk reader's or a reader thread's). */
export async function readEventList(store: Store, params: Params<'event.list'>): Promise<Result<'event.list'>> {
  const binding = { filter: params.filter ?? {}, since: params.since, until: params.until };
  const { page, nextCursor } = await keysetPage(
    store,
    { method: 'event.list', binding, position: eventPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => store.events.page({ ...params.filter, since: params.since, until: params.until }, { limit, after }),
  );
  return { events: page.events.map(toStoredEvent), ...nextCursor, ...(page.payload_search ? { payload_search: page.payload_search } : {}) };
}
