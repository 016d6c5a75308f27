import { describe, expect, it } from 'vitest';
import { roleScopes } from '@switchboard/contract/roles';
import { actionScopes, permissionFor } from './access';

describe('permissionFor', () => {
  it('allows what the session scopes hold', () => {
    expect(permissionFor(roleScopes.operator, 'operator', 'events:redrive')).toEqual({ allowed: true, needsRole: 'operator' });
  });
  it('names the least role that could, for a role without the scope', () => {
    expect(permissionFor(roleScopes.viewer, 'viewer', 'events:redrive')).toMatchObject({ allowed: false, reason: 'needs operator' });
    expect(permissionFor(roleScopes.operator, 'operator', actionScopes['runtime.nuke'])).toMatchObject({ allowed: false, reason: 'needs admin' });
    expect(permissionFor(roleScopes.viewer, 'viewer', actionScopes['mailbox.approve'])).toMatchObject({ allowed: false, reason: 'needs reviewer' });
  });
  it('says the token is narrowed when the role has the scope but the token does not', () => {
    expect(permissionFor(['read', 'heartbeat'], 'admin', 'events:publish')).toMatchObject({ allowed: false, reason: 'needs a token with events:publish' });
  });
  it('refuses while the session is unknown', () => {
    expect(permissionFor(undefined, undefined, 'read')).toMatchObject({ allowed: false, reason: 'needs viewer' });
  });
});
