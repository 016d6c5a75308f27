/**
 * The one way a list method pages: the store reads a page after a keyset position and says where
 * the page ended; this module turns the client's opaque cursor into that position and the page's
 * end back into the next cursor (cursor.ts signs and binds it).
 */
import { DEFAULT_PAGE_LIMIT, type MethodName } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import type { z } from 'zod';
import { decodeCursor, encodeCursor } from './cursor';

export interface KeysetList<P> {
  method: MethodName;
  /** Everything that decides membership and order: a cursor is refused under any other binding. */
  binding: unknown;
  /** The shape of the position a cursor carries, checked on decode since a cursor is client input. */
  position: z.ZodType<P>;
  cursor: string | undefined;
  limit: number | undefined;
}

export interface KeysetPage<Page> {
  page: Page;
  /** Spread into the result: `next_cursor` when more pages exist, nothing otherwise. */
  nextCursor: { next_cursor?: string };
}

/** Reads one page through `read` (after the cursor's position, at most the limit) and mints the next cursor. */
export async function keysetPage<P, Page extends { next?: P }>(
  store: Store,
  list: KeysetList<P>,
  read: (after: P | undefined, limit: number) => Promise<Page>,
): Promise<KeysetPage<Page>> {
  const after = list.cursor ? await decodeCursor(store, list.method, list.binding, list.cursor, list.position) : undefined;
  const page = await read(after, list.limit ?? DEFAULT_PAGE_LIMIT);
  const nextCursor = page.next === undefined ? {} : { next_cursor: await encodeCursor(store, list.method, list.binding, page.next) };
  return { page, nextCursor };
}
