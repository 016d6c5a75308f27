import { describe, expect, it } from 'vitest';
import { checkPayloadSchema, validatePayload } from './payload-schema';

describe('payload schemas (ajv)', () => {
  const schema = {
    type: 'object',
    required: ['id', 'amount'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 2 },
      amount: { type: 'number', minimum: 0 },
      at: { type: 'string', format: 'date-time' },
      tags: { type: 'array', items: { type: 'string' } },
      kind: { enum: ['a', 'b'] },
      note: { type: ['string', 'null'] },
    },
  };

  it('accepts a valid payload and names every problem of an invalid one by its path', () => {
    expect(checkPayloadSchema(schema, 's')).toBeUndefined();
    expect(validatePayload(schema, { id: 'ab', amount: 1, at: '2026-11-22T10:00:00Z', tags: ['x'], kind: 'a', note: null })).toEqual([]);
    expect(validatePayload(schema, { amount: -1, at: 'yesterday', tags: ['x', 3], kind: 'c', note: 5, extra: true })).toEqual(
      expect.arrayContaining([
        { path: 'payload.id', message: 'is required' },
        { path: 'payload.extra', message: 'is not allowed' },
        { path: 'payload.amount', message: 'must be >= 0' },
        { path: 'payload.at', message: 'must match format "date-time"' },
        { path: 'payload.tags[1]', message: 'expected string, got integer' },
        { path: 'payload.kind', message: 'must be one of "a", "b"' },
        { path: 'payload.note', message: 'expected string or null, got integer' },
      ]),
    );
  });

  it('refuses schemas that are not JSON Schema, naming where', () => {
    expect(checkPayloadSchema([], 's')).toEqual({ at: 's', problem: 'must be an object' });
    expect(checkPayloadSchema({ type: 'object', properties: { a: { maxLength: 'ten' } } }, 's')?.at).toBe('s.properties.a.maxLength');
    expect(checkPayloadSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, 's')?.at).toBe('s');
  });
});
