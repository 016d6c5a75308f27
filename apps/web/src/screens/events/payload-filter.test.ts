import { describe, expect, it } from 'vitest';
import type { PayloadCondition } from '@switchboard/contract';
import { formatPayloadFilter, parsePayloadFilter } from './payload-filter';

const parsed = (text: string) => {
  const r = parsePayloadFilter(text);
  if (!r.ok) throw new Error(`"${text}" did not parse: ${r.error}`);
  return r.conditions;
};
const refused = (text: string) => {
  const r = parsePayloadFilter(text);
  if (r.ok) throw new Error(`"${text}" parsed as ${JSON.stringify(r.conditions)}`);
  return r.error;
};

describe('parsePayloadFilter', () => {
  it('reads each operator, with or without "payload."', () => {
    expect(parsed('payload.ticket_id = T-1030')).toEqual([{ path: 'ticket_id', op: 'eq', value: 'T-1030' }]);
    expect(parsed('ticket_id=T-1030')).toEqual([{ path: 'ticket_id', op: 'eq', value: 'T-1030' }]);
    expect(parsed('payload.customer.tier in gold, silver')).toEqual([{ path: 'customer.tier', op: 'in', value: ['gold', 'silver'] }]);
    expect(parsed('payload.customer.tier IN (gold,silver)')).toEqual([{ path: 'customer.tier', op: 'in', value: ['gold', 'silver'] }]);
    expect(parsed('payload.ticket_id starts with T-10')).toEqual([{ path: 'ticket_id', op: 'prefix', value: 'T-10' }]);
    expect(parsed('payload.ticket_id ^= T-10')).toEqual([{ path: 'ticket_id', op: 'prefix', value: 'T-10' }]);
    expect(parsed('payload.refund_id exists')).toEqual([{ path: 'refund_id', op: 'exists' }]);
  });

  it('types bare numbers and booleans, and keeps quoted values as text', () => {
    expect(parsed('payload.amount = 250')).toEqual([{ path: 'amount', op: 'eq', value: 250 }]);
    expect(parsed('payload.amount = -2.5e3')).toEqual([{ path: 'amount', op: 'eq', value: -2500 }]);
    expect(parsed('payload.flag = true')).toEqual([{ path: 'flag', op: 'eq', value: true }]);
    expect(parsed('payload.code = "250"')).toEqual([{ path: 'code', op: 'eq', value: '250' }]);
    expect(parsed('payload.note = "a; b, \\"c\\""')).toEqual([{ path: 'note', op: 'eq', value: 'a; b, "c"' }]);
    expect(parsed('payload.code = 0250')).toEqual([{ path: 'code', op: 'eq', value: '0250' }]);
    expect(parsed('payload.id in 1, "1", true')).toEqual([{ path: 'id', op: 'in', value: [1, '1', true] }]);
    // A prefix is text whatever it looks like.
    expect(parsed('payload.zip starts with 10')).toEqual([{ path: 'zip', op: 'prefix', value: '10' }]);
  });

  it('joins conditions with ";" or "and", outside quotes', () => {
    expect(parsed('payload.ticket_id = T-1; payload.amount exists')).toEqual([
      { path: 'ticket_id', op: 'eq', value: 'T-1' },
      { path: 'amount', op: 'exists' },
    ]);
    expect(parsed('ticket_id = T-1 AND order_id = "x and y"')).toEqual([
      { path: 'ticket_id', op: 'eq', value: 'T-1' },
      { path: 'order_id', op: 'eq', value: 'x and y' },
    ]);
    expect(parsed('  ')).toEqual([]);
  });

  it('says what is wrong', () => {
    expect(refused('payload.ticket-id = 5')).toMatch(/path segment "ticket-id"/);
    expect(refused('payload.a..b = 5')).toMatch(/path segment ""/);
    expect(refused('payload.a.b.c.d.e.f.g.h.i exists')).toMatch(/at most 8 segments/);
    expect(refused('payload.ticket_id')).toMatch(/is not a condition/);
    expect(refused('payload.ticket_id = ')).toMatch(/value is missing/);
    expect(refused('payload.ticket_id = "open')).toMatch(/not a closed quoted text/);
    expect(refused('payload.id in 1,,2')).toMatch(/value is missing/);
    expect(refused(Array.from({ length: 9 }, (_, i) => `f${i} exists`).join('; '))).toMatch(/at most 8 payload conditions/);
    expect(refused(`payload.id in ${Array.from({ length: 101 }, (_, i) => i).join(',')}`)).toMatch(/at most 100 values/);
    expect(refused(`payload.id = ${'x'.repeat(501)}`)).toMatch(/at most 500 characters/);
  });
});

describe('formatPayloadFilter', () => {
  it('writes what parsePayloadFilter reads back to the same conditions', () => {
    const conditions: PayloadCondition[] = [
      { path: 'ticket_id', op: 'eq', value: 'T-1030' },
      { path: 'code', op: 'eq', value: '250' },
      { path: 'amount', op: 'eq', value: 250 },
      { path: 'flag', op: 'eq', value: false },
      { path: 'note', op: 'eq', value: 'a; b and "c"' },
      { path: 'customer.tier', op: 'in', value: ['gold', 'true', 1, ' padded '] },
      { path: 'zip', op: 'prefix', value: '10' },
      { path: 'refund_id', op: 'exists' },
    ];
    const text = formatPayloadFilter(conditions);
    expect(text).toContain('payload.ticket_id = T-1030');
    expect(parsed(text)).toEqual(conditions);
  });
});
