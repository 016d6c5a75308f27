/** Store rows of people and tokens as the contract shapes them. */
import type { AccessToken, Scope, User } from '@switchboard/contract';
import type { TokenRecord, UserRecord } from '@switchboard/store';

export function userResult(u: UserRecord): User {
  return {
    id: u.id,
    display_name: u.display_name,
    ...(u.email ? { email: u.email } : {}),
    role: u.role as User['role'],
    disabled: u.disabled,
    created_at: u.created_at,
    ...(u.last_seen_at ? { last_seen_at: u.last_seen_at } : {}),
    sign_in: u.oidc_subject ? 'oidc' : 'token',
  };
}

export function tokenResult(t: TokenRecord): AccessToken {
  return {
    id: t.id,
    name: t.name,
    user_id: t.user_id ?? '',
    prefix: t.prefix,
    ...(t.scopes ? { scopes: JSON.parse(t.scopes) as Scope[] } : {}),
    created_at: t.created_at,
    ...(t.last_used_at ? { last_used_at: t.last_used_at } : {}),
    ...(t.revoked_at ? { revoked_at: t.revoked_at } : {}),
  };
}
