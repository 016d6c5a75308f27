import { describe, expect, it } from 'vitest';
import { REASON_MAX, payloadSummary, reasonProblem } from './mailbox-format';

describe('reasonProblem', () => {
  it('refuses empty and whitespace-only reasons, and over-long ones', () => {
    expect(reasonProblem('')).toMatch(/cannot be empty/);
    expect(reasonProblem(' \n\t ')).toMatch(/cannot be empty/);
    expect(reasonProblem('x'.repeat(REASON_MAX + 1))).toMatch(/too long/);
  });
  it('accepts a stated reason, measured without surrounding spaces', () => {
    expect(reasonProblem('Duplicate')).toBeNull();
    expect(reasonProblem(`  ${'x'.repeat(REASON_MAX)}  `)).toBeNull();
  });
});

describe('payloadSummary', () => {
  it('shows the first scalar members only', () => {
    expect(payloadSummary({ nested: { a: 1 }, ticket_id: 'T-1', amount: 42.5, ok: true, more: 'x' })).toBe('ticket_id: T-1 · amount: 42.5 · ok: true');
  });
});
