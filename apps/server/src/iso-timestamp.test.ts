import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-timestamp';

describe('isoTimestamp', () => {
  it('formats as Date#toISOString does, across seconds, for times in any order', () => {
    const base = Date.parse('2026-11-27T23:59:59.000Z');
    const samples = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, -1, -999, -1000, 86_400_000, 3_600_123];
    for (const offset of [...samples, ...[...samples].reverse()]) {
      const ms = base + offset;
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
    for (const ms of [0, 999, -1, -62_198_755_200_000, 253_402_300_800_000, Date.parse('1969-12-31T23:59:59.500Z')]) {
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
