/** From claims to access: the required value, the highest mapped role, the default, and where claims are found. */
import { describe, expect, it } from 'vitest';
import { claimValues, decideAccess, displayNameOf } from '../src/http/oidc/claims';

const rules = {
  roleClaim: 'groups',
  roleMap: new Map([
    ['sb-reviewers', 'reviewer'],
    ['sb-operators', 'operator'],
    ['sb-admins', 'admin'],
  ] as const),
  defaultRole: undefined,
  requiredClaim: { name: 'groups', value: 'switchboard' },
};

describe('decideAccess', () => {
  it('gives the highest role any value maps to, whatever their order', () => {
    expect(decideAccess({ groups: ['switchboard', 'sb-operators', 'sb-reviewers'] }, rules)).toEqual({ ok: true, role: 'operator' });
    expect(decideAccess({ groups: ['sb-admins', 'switchboard', 'sb-reviewers'] }, rules)).toEqual({ ok: true, role: 'admin' });
  });

  it('refuses without the required value, even with a mapped role', () => {
    expect(decideAccess({ groups: ['sb-admins'] }, rules)).toMatchObject({ ok: false, reason: 'not_allowed' });
  });

  it('refuses without a mapped value unless there is a default role', () => {
    expect(decideAccess({ groups: ['switchboard'] }, rules)).toMatchObject({ ok: false, reason: 'no_role' });
    expect(decideAccess({ groups: ['switchboard'] }, { ...rules, defaultRole: 'viewer' })).toEqual({ ok: true, role: 'viewer' });
  });

  it('reads a single string claim as one value', () => {
    expect(decideAccess({ groups: 'switchboard' }, { ...rules, roleClaim: 'role', roleMap: new Map([['ops', 'operator']]) })).toMatchObject({ ok: false });
    expect(decideAccess({ groups: 'switchboard', role: 'ops' }, { ...rules, roleClaim: 'role', roleMap: new Map([['ops', 'operator']]) })).toEqual({ ok: true, role: 'operator' });
  });
});

describe('claimValues', () => {
  it('follows a dotted path when no claim has the whole name, and prefers a claim named with dots', () => {
    expect(claimValues({ realm_access: { roles: ['sb-admins', 7] } }, 'realm_access.roles')).toEqual(['sb-admins', '7']);
    expect(claimValues({ 'https://example.com/roles': ['a'], https: { 'example.com/roles': ['b'] } }, 'https://example.com/roles')).toEqual(['a']);
    expect(claimValues({ groups: [{ nested: 'object' }, null] }, 'groups')).toEqual([]);
    expect(claimValues({}, 'groups')).toEqual([]);
  });
});

describe('displayNameOf', () => {
  it('takes the name, else the login name, else the email, else the subject', () => {
    expect(displayNameOf({ sub: 's1', name: ' Rita ', preferred_username: 'rita' })).toBe('Rita');
    expect(displayNameOf({ sub: 's1', name: '', preferred_username: 'rita' })).toBe('rita');
    expect(displayNameOf({ sub: 's1', email: 'r@example.test' })).toBe('r@example.test');
    expect(displayNameOf({ sub: 's1' })).toBe('s1');
  });
});
