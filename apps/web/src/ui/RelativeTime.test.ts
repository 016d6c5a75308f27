import { describe, expect, it } from 'vitest';
import { formatRelative } from './RelativeTime';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const at = (offsetS: number) => new Date(now + offsetS * 1000).toISOString();

describe('formatRelative', () => {
  it('says "just now" for a record made within the clock tick, even if it looks slightly in the future', () => {
    expect(formatRelative(at(9), now)).toBe('just now');
    expect(formatRelative(at(-2), now)).toBe('just now');
  });

  it('counts back in the largest whole unit', () => {
    expect(formatRelative(at(-90), now)).toMatch(/1 min/);
    expect(formatRelative(at(-3 * 3600), now)).toMatch(/3 hr/);
  });

  it('still shows times well in the future as future', () => {
    expect(formatRelative(at(600), now)).toMatch(/^in /);
  });
});
