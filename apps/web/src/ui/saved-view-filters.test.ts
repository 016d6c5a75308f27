import { describe, expect, it } from 'vitest';
import { filtersOf, sameFilters, searchOf } from './saved-view-filters';

describe('saved view filters', () => {
  it('keeps what is listed, not what is selected or shown, and repeated params as lists', () => {
    const params = new URLSearchParams('event_name=refund&range=24h&selected=evt_1&live=1&view=tree&saved_view=view_1&payload=a%3D1&payload=b%5E%3Dx&dead_letter=dl_1');
    expect(filtersOf(params, 'events')).toEqual({ event_name: 'refund', range: '24h', payload: ['a=1', 'b^=x'] });
    expect(filtersOf(new URLSearchParams('state=all&selected=inc_1&sort=recent'), 'incidents')).toEqual({ state: 'all', sort: 'recent' });
  });

  it('leaves out what the server would refuse instead of failing the save', () => {
    expect(filtersOf(new URLSearchParams(`Bad Name=x&utm_Source=y&type=${'t'.repeat(1001)}&status=pending&priority=`), 'mailbox')).toEqual({ status: 'pending' });
  });

  it('opens filters as a query string that reads back the same', () => {
    const filters = { event_name: 'refund & returns', payload: ['ticket_id = T-1', 'x ^= y'] };
    const search = searchOf(filters, 'view_1');
    expect(search.startsWith('?')).toBe(true);
    const back = new URLSearchParams(search);
    expect(back.get('saved_view')).toBe('view_1');
    expect(filtersOf(back, 'events')).toEqual(filters);
    expect(searchOf({})).toBe('');
  });

  it('compares filters regardless of param order', () => {
    expect(sameFilters({ a: '1', b: ['x', 'y'] }, { b: ['x', 'y'], a: '1' })).toBe(true);
    expect(sameFilters({ a: '1' }, { a: '2' })).toBe(false);
    expect(sameFilters({ b: ['x', 'y'] }, { b: ['y', 'x'] })).toBe(false);
    expect(sameFilters({ a: '1' }, { a: ['1'] })).toBe(true);
  });
});
