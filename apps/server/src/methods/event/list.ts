import type { Params, Result } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import { keysetPage } from '../../pagination/keyset-page';
import { eventPosition } from '../../pagination/positions';
import { toStoredEvent } from '../../records/stored-event';
import type { Handler } from '../../rpc/handler';
import { SerializedResult } from '../../rpc/serialized-result';

/** Reads in a reader thread where the server runs them and one should take it (reads/reader-threads.ts), else here. */
export const eventList: Handler<'event.list'> = async (params, ctx) =>
  ctx.readers?.takesRead() ? ctx.readers.read('event.list', params) : new SerializedResult<'event.list'>(await readEventListText(ctx.store, params));

const pageOf = (params: Params<'event.list'>) => ({ ...params.filter, since: params.since, until: params.until });
const keysetOf = (params: Params<'event.list'>) => ({
  method: 'event.list' as const,
  binding: { filter: params.filter ?? {}, since: params.since, until: params.until },
  position: eventPosition,
  cursor: params.cursor,
  limit: params.limit,
});

/** One page of event.list from `store` (the server's, a bulk reader's or a reader thread's), as records: what exports write. */
export async function readEventList(store: Store, params: Params<'event.list'>): Promise<Result<'event.list'>> {
  const { page, nextCursor } = await keysetPage(store, keysetOf(params), (after, limit) => store.events.page(pageOf(params), { limit, after }));
  return { events: page.events.map(toStoredEvent), ...nextCursor, ...(page.payload_search ? { payload_search: page.payload_search } : {}) };
}

/**
 * The same page as its result's JSON text, what an answer sends. Where the store writes the
 * records' text itself (store.events.pageJson, SQLite), the page is never a row object per event,
 * delivery and dead letter; elsewhere it is read as records and serialized.
 */
export async function readEventListText(store: Store, params: Params<'event.list'>): Promise<string> {
  if (!store.events.recordsAsJson) return JSON.stringify(await readEventList(store, params));
  const { page, nextCursor } = await keysetPage(store, keysetOf(params), (after, limit) => store.events.pageJson(pageOf(params), { limit, after }));
  let text = `{"events":${page.events}`;
  if (nextCursor.next_cursor !== undefined) text += `,"next_cursor":${JSON.stringify(nextCursor.next_cursor)}`;
  if (page.payload_search) text += `,"payload_search":${JSON.stringify(page.payload_search)}`;
  return text + '}';
}
