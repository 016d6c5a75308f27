import { describe, expect, it } from 'vitest';
import { eventQueryFromUrl, fromLocalInput, rangeOf, toLocalInput } from './event-query';

const anchor = Date.parse('2026-03-01T12:00:00.000Z');

describe('eventQueryFromUrl', () => {
  it('maps every filter and drops empty ones', () => {
    const p = new URLSearchParams('event_name=refund.approved&entity_id=&run_id=run_1&subscriber_id=pay-refund&reason_code=TIMEOUT&event_id=evt_1&dead=1&selected=evt_9');
    expect(eventQueryFromUrl(p, 'events', anchor)).toEqual({
      filter: { event_name_prefix: 'refund.approved', run_id: 'run_1', subscriber_id: 'pay-refund', reason_code: 'TIMEOUT', event_id: 'evt_1', has_dead_letter: true },
    });
  });
  it('reads payload conditions from the URL and leaves out text the bar cannot read', () => {
    const p = new URLSearchParams({ payload: 'payload.ticket_id = T-1030; payload.amount = 25', event_name: 'ticket' });
    expect(eventQueryFromUrl(p, 'events', anchor)).toEqual({
      filter: {
        event_name_prefix: 'ticket',
        payload: [
          { path: 'ticket_id', op: 'eq', value: 'T-1030' },
          { path: 'amount', op: 'eq', value: 25 },
        ],
      },
    });
    expect(eventQueryFromUrl(new URLSearchParams({ payload: 'payload.ticket-id = 1' }), 'events', anchor)).toEqual({});
  });
  it('forces has_dead_letter in the dead-letters view', () => {
    expect(eventQueryFromUrl(new URLSearchParams('dead=0'), 'dead-letters', anchor)).toEqual({ filter: { has_dead_letter: true } });
    expect(eventQueryFromUrl(new URLSearchParams('dead=0'), 'events', anchor)).toEqual({ filter: { has_dead_letter: false } });
  });
  it('anchors relative ranges and passes custom ranges through', () => {
    expect(eventQueryFromUrl(new URLSearchParams('range=1h'), 'events', anchor)).toEqual({ since: '2026-03-01T11:00:00.000Z' });
    const custom = new URLSearchParams('since=2026-02-01T00:00:00Z&until=2026-02-02T00:00:00.000Z&range=1h');
    expect(rangeOf(custom)).toBe('custom');
    expect(eventQueryFromUrl(custom, 'events', anchor)).toEqual({ since: '2026-02-01T00:00:00.000Z', until: '2026-02-02T00:00:00.000Z' });
    expect(eventQueryFromUrl(new URLSearchParams('since=not-a-date'), 'events', anchor)).toEqual({});
    expect(eventQueryFromUrl(new URLSearchParams('range=bogus'), 'events', anchor)).toEqual({});
  });
  it('round-trips datetime-local values', () => {
    const iso = '2026-02-01T10:15:00.000Z';
    expect(fromLocalInput(toLocalInput(iso))).toBe(iso);
    expect(fromLocalInput('')).toBeNull();
  });
});
