import { describe, expect, it } from 'vitest';
import { approvalProgress, approveUnavailable } from './approval-rules';

type Reviewed = Parameters<typeof approveUnavailable>[0];
const pending = (over: Partial<Reviewed> = {}): Reviewed => ({
    item: { status: 'pending', type: 'fraud_review' },
    approvals: [{ user_id: 'usr_rita', user_name: 'Rita', at: '2026-11-26T21:00:00.000Z' }],
    deciders: { roles: ['reviewer', 'operator'], user_ids: [], approvals_required: 2 },
    run_started_by_user_id: 'usr_otto',
    ...over,
  });

describe('approvalProgress', () => {
  it('counts approvals against what the type needs, by name', () => {
    expect(approvalProgress(pending())).toEqual({ text: '1 of 2 approvals', names: ['Rita'] });
    expect(approvalProgress({ approvals: [], deciders: { roles: [], user_ids: [], approvals_required: 1 } })).toBeNull();
    expect(approvalProgress({})).toBeNull();
  });
});

describe('approveUnavailable', () => {
  it('explains an earlier approval, the run starter, a role the type does not name and a role without decisions', () => {
    expect(approveUnavailable(pending(), { userId: 'usr_rita', role: 'reviewer' })).toBe('You already approved this item; it needs an approval from someone else.');
    expect(approveUnavailable(pending(), { userId: 'usr_otto', role: 'operator' })).toBe('You started this run, so someone else has to approve its item.');
    expect(approveUnavailable(pending(), { userId: 'usr_ada', role: 'admin' })).toBe('Your role (admin) may not decide fraud_review items; they are decided by reviewer or operator.');
    expect(approveUnavailable(pending(), { userId: 'usr_vic', role: 'viewer' })).toMatch(/^Your role \(viewer\) may not decide mailbox items/);
  });
  it('allows another permitted person, a named user, an unknown viewer and anything not pending', () => {
    expect(approveUnavailable(pending(), { userId: 'usr_ravi', role: 'reviewer' })).toBeNull();
    expect(approveUnavailable(pending({ deciders: { roles: [], user_ids: ['usr_ada'], approvals_required: 1 } }), { userId: 'usr_ada', role: 'admin' })).toBeNull();
    expect(approveUnavailable(pending(), null)).toBeNull();
    expect(approveUnavailable(pending({ item: { status: 'approved', type: 'fraud_review' } }), { userId: 'usr_rita', role: 'reviewer' })).toBeNull();
  });
});
