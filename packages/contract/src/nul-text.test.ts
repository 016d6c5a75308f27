import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nulTextPath } from './nul-text';

const params = z.strictObject({
  id: z.string().min(1),
  note: z.string().optional(),
  tags: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  trimmed: z.string().transform((s) => s.trim()).optional(),
  either: z.union([z.string(), z.object({ name: z.string() })]).optional(),
});

describe('nulTextPath', () => {
  it('names the first text param holding U+0000, at any depth the schema follows', () => {
    expect(nulTextPath(params, { id: 'a\u0000' })).toBe('id');
    expect(nulTextPath(params, { id: 'a', tags: ['ok', 'b\u0000'] })).toBe('tags.1');
    expect(nulTextPath(params, { id: 'a', labels: { 'k\u0000': 'v' } })).toBe('labels.k\u0000');
    expect(nulTextPath(params, { id: 'a', labels: { k: '\u0000' } })).toBe('labels.k');
    expect(nulTextPath(params, { id: 'a', trimmed: ' \u0000 ' })).toBe('trimmed');
    expect(nulTextPath(params, { id: 'a', either: { name: 'x\u0000' } })).toBe('either.name');
  });

  it('passes clean params, absent fields and JSON documents whatever they hold', () => {
    expect(nulTextPath(params, { id: 'a', note: 'plain', tags: [], labels: { k: 'v' } })).toBeUndefined();
    expect(nulTextPath(params, { id: 'a', payload: { 'k\u0000': ['\u0000', { deep: '\u0000' }] } })).toBeUndefined();
  });
});
