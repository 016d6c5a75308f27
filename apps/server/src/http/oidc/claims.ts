/**
 * What an OpenID Connect sign-in grants, decided from the person's claims alone: whether they may
 * sign in (the required claim value) and their role (the highest role any claim value maps to).
 */
import { ROLES, type Role } from '@switchboard/contract';
import type { OidcConfig } from '../../config';

export type Claims = Record<string, unknown>;

export type AccessDecision = { ok: true; role: Role } | { ok: false; reason: 'not_allowed' | 'no_role'; detail: string };

/**
 * A claim's values as strings: a list stays a list, one value becomes a list of one. A name absent
 * at the top level is read as a dotted path (Keycloak's `realm_access.roles`); names that are URLs
 * with dots (Auth0's namespaced claims) are found at the top level first.
 */
export function claimValues(claims: Claims, name: string): string[] {
  let value: unknown = claims[name];
  if (value === undefined && name.includes('.')) {
    value = name.split('.').reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Claims)[key] : undefined), claims);
  }
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map(String);
}

export function decideAccess(claims: Claims, rules: Pick<OidcConfig, 'roleClaim' | 'roleMap' | 'defaultRole' | 'requiredClaim'>): AccessDecision {
  const required = rules.requiredClaim;
  if (required && !claimValues(claims, required.name).includes(required.value)) {
    return { ok: false, reason: 'not_allowed', detail: `claim "${required.name}" does not hold "${required.value}"` };
  }
  const mapped = claimValues(claims, rules.roleClaim).flatMap((v) => {
    const role = rules.roleMap.get(v);
    return role ? [role] : [];
  });
  const role = mapped.length ? mapped.reduce((a, b) => (ROLES.indexOf(b) > ROLES.indexOf(a) ? b : a)) : rules.defaultRole;
  if (!role) return { ok: false, reason: 'no_role', detail: `no value of claim "${rules.roleClaim}" maps to a role` };
  return { ok: true, role };
}

/** The name people see: the provider's display name, else the login name, else the email, else the subject. */
export function displayNameOf(claims: Claims): string {
  for (const key of ['name', 'preferred_username', 'email', 'sub']) {
    const value = claims[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 100);
  }
  return 'unnamed';
}

export function emailOf(claims: Claims): string | null {
  return typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.slice(0, 320) : null;
}
