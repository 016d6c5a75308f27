import { describe, expect, it } from 'vitest';
import { formatAge, serverAgeMs } from './server-format';

describe('serverAgeMs', () => {
  const report = { ts: '2026-11-21T12:00:05.000Z', receivedAt: 1_000_000 };

  it('is the age at the report plus the time since it arrived', () => {
    expect(serverAgeMs('2026-11-21T12:00:04.200Z', report, 1_000_000)).toBe(800);
    expect(serverAgeMs('2026-11-21T12:00:04.200Z', report, 1_002_500)).toBe(3_300);
  });

  it('ignores how far the browser clock is from the server clock', () => {
    // The browser's clock is an hour off: only the time since arrival is read from it.
    const offByAnHour = { ts: report.ts, receivedAt: Date.parse('2026-11-21T13:00:05.000Z') };
    expect(serverAgeMs('2026-11-21T12:00:04.000Z', offByAnHour, offByAnHour.receivedAt + 500)).toBe(1_500);
  });

  it('is never negative (a heartbeat written just after the report was read)', () => {
    expect(serverAgeMs('2026-11-21T12:00:05.300Z', report, 1_000_100)).toBe(0);
  });

  it('is zero rather than NaN for a time it cannot read', () => {
    expect(serverAgeMs('not a time', report, 1_000_000)).toBe(0);
  });
});

describe('formatAge', () => {
  it('shows tenths of a second under ten seconds, never rounding up', () => {
    expect(formatAge(0)).toBe('0.0 s ago');
    expect(formatAge(849)).toBe('0.8 s ago');
    expect(formatAge(9_960)).toBe('9.9 s ago');
  });

  it('shows whole seconds up to a minute', () => {
    expect(formatAge(10_000)).toBe('10 s ago');
    expect(formatAge(59_999)).toBe('59 s ago');
  });

  it('shows minutes, then hours and minutes, then days and hours', () => {
    expect(formatAge(60_000)).toBe('1 min ago');
    expect(formatAge(59 * 60_000 + 59_000)).toBe('59 min ago');
    expect(formatAge(3 * 3_600_000 + 5 * 60_000)).toBe('3 h 5 min ago');
    expect(formatAge(50 * 3_600_000)).toBe('2 d 2 h ago');
  });

  it('treats a negative age as now', () => {
    expect(formatAge(-500)).toBe('0.0 s ago');
  });
});
