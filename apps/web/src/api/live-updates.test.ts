import { QueryClient, QueryObserver, type QueryKey } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChangeThrottle, affectedMethods, invalidateChanged } from './live-updates';
import { rpcKeys } from './query-client';

describe('ChangeThrottle', () => {
  afterEach(() => vi.useRealTimers());

  it('applies the first notice at once and merges the ones that follow within the interval into one', () => {
    vi.useFakeTimers();
    const applied: string[][] = [];
    const throttle = new ChangeThrottle((kinds) => applied.push([...kinds].sort()), 250);
    throttle.changed(['events']);
    expect(applied).toEqual([['events']]);
    throttle.changed(['deliveries']);
    throttle.changed(['events', 'mailbox']);
    expect(applied).toHaveLength(1);
    vi.advanceTimersByTime(250);
    expect(applied).toEqual([['events'], ['deliveries', 'events', 'mailbox']]);
    vi.advanceTimersByTime(1000);
    throttle.changed(['ingress']);
    expect(applied).toHaveLength(3);
    throttle.stop();
  });
});

describe('invalidateChanged', () => {
  /** An observed (on screen) query whose fetches are counted. */
  function watched(client: QueryClient, queryKey: QueryKey, data: unknown) {
    const counter = { fetches: 0 };
    const observer = new QueryObserver(client, {
      queryKey,
      queryFn: async () => {
        counter.fetches += 1;
        return data;
      },
      staleTime: Infinity,
    });
    const stop = observer.subscribe(() => undefined);
    return { counter, stop };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('reads again what the kinds show, leaves loaded event rows in place, and fills an empty event list', async () => {
    const client = new QueryClient();
    const loaded = watched(client, rpcKeys.query('event.list', { filter: {} }), { pages: [{ events: [{ event_id: 'evt_1' }] }] });
    const empty = watched(client, rpcKeys.query('event.list', { filter: { event_name: 'x' } }), { pages: [{ events: [] }] });
    const tail = watched(client, rpcKeys.query('event.list', { since: 'x' }, 'new-count'), { count: 0 });
    const mailbox = watched(client, rpcKeys.query('mailbox.list', {}), { pages: [] });
    await settle();
    const fetches = () => [loaded, empty, tail, mailbox].map((q) => q.counter.fetches);
    expect(fetches()).toEqual([1, 1, 1, 1]);

    await invalidateChanged(client, ['events']);
    expect(fetches()).toEqual([1, 2, 2, 1]);
    // Not read again now, but no longer fresh: the next look at it (Refresh, coming back) reads it.
    expect(client.getQueryState(rpcKeys.query('event.list', { filter: {} }))?.isInvalidated).toBe(true);

    await invalidateChanged(client, ['mailbox', 'tokens']);
    expect(fetches()).toEqual([1, 2, 2, 2]);

    await invalidateChanged(client, ['reset']);
    expect(fetches()).toEqual([2, 3, 3, 3]);
    for (const q of [loaded, empty, tail, mailbox]) q.stop();
  });

  it('maps every kind to the reads that show it and ignores kinds it does not know', () => {
    expect([...affectedMethods(['mailbox'])].sort()).toEqual(['mailbox.get', 'mailbox.list', 'mailbox.reject_reasons']);
    expect(affectedMethods(['events'])).toContain('run.get');
    expect(affectedMethods(['deliveries'])).toContain('runtime.incidents');
    // An incident's dead-letter recovery follows a redrive's deliveries.
    expect(affectedMethods(['deliveries'])).toContain('runtime.incident_logs');
    expect(affectedMethods(['something-newer']).size).toBe(0);
  });
});
