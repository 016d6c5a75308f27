import { QueryClient } from '@tanstack/react-query';
import { expect, it } from 'vitest';
import { rpcKeys } from './query-client';

it("invalidating a method's key reaches every view of that method and nothing else", async () => {
  const client = new QueryClient();
  const page = rpcKeys.query('event.list', { filter: {} });
  const one = rpcKeys.query('event.list', { event_id: 'evt_1' }, 'one');
  const tail = rpcKeys.query('event.list', { since: 'x' }, 'new-count');
  const other = rpcKeys.query('mailbox.list', {});
  for (const key of [page, one, tail, other]) client.setQueryData(key, { loaded: true });
  await client.invalidateQueries({ queryKey: rpcKeys.method('event.list') });
  expect([page, one, tail].map((key) => client.getQueryState(key)?.isInvalidated)).toEqual([true, true, true]);
  expect(client.getQueryState(other)?.isInvalidated).toBe(false);
});
