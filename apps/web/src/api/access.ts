/**
 * "Can I?": what the signed-in token may do, from the scopes the session carries. A button that
 * sends a method asks by method; the table below names each one's scope and the compiler checks
 * it against the method's own declaration in the contract, so the two cannot drift apart.
 */
import type { Methods } from '@switchboard/contract';
import { leastRoleFor, ROLES, type Role, type Scope } from '@switchboard/contract/roles';
import { useSession } from './session';

type ScopeOf<M extends keyof Methods> = Methods[M]['scope'];

/** The methods the console offers as actions, with the scope each declares. */
function scopesOfActions<T extends { [M in keyof Methods]?: ScopeOf<M> }>(table: T): T {
  return table;
}

export const actionScopes = scopesOfActions({
  'runtime.nuke': 'runtime:reset',
  'runtime.retention_run': 'runtime:reset',
  'runtime.pause': 'runtime:pause',
  'runtime.resume': 'runtime:pause',
  'runtime.incident_update': 'incidents:write',
  'runtime.set_tool_server_faults': 'tool_servers:faults',
  'event.publish': 'events:publish',
  'run.start': 'events:publish',
  'event.redrive': 'events:redrive',
  'event.replay': 'events:redrive',
  'operation.cancel': 'events:redrive',
  'mailbox.approve': 'mailbox:decide',
  'mailbox.reject': 'mailbox:decide',
  'user.list': 'users:admin',
  'user.create': 'users:admin',
  'user.update': 'users:admin',
  'token.list': 'users:admin',
  'token.create': 'users:admin',
  'token.revoke': 'users:admin',
  'audit.list': 'audit:read',
  'alert.rule_create': 'alerts:write',
  'alert.rule_update': 'alerts:write',
  'alert.rule_delete': 'alerts:write',
  'alert.destination_create': 'alerts:write',
  'alert.destination_delete': 'alerts:write',
  'alert.test': 'alerts:write',
  'alert.notice_resend': 'alerts:write',
  'alert.silence_create': 'alerts:write',
  'alert.silence_end': 'alerts:write',
} as const);

export type ConsoleAction = keyof typeof actionScopes;

/** What the signed-in person can do about one scope: allowed, or the least role that would be. */
export interface Permission {
  allowed: boolean;
  /** The least role holding the scope, for "needs operator". */
  needsRole: Role;
  /** "needs operator", or "needs a token with runtime:pause" when the role has it but the token is narrowed. */
  reason?: string;
}

export function permissionFor(scopes: readonly Scope[] | undefined, role: Role | undefined, scope: Scope): Permission {
  const needsRole = leastRoleFor(scope);
  if (scopes?.includes(scope)) return { allowed: true, needsRole };
  const roleHasIt = role !== undefined && roleAtLeast(role, needsRole);
  return { allowed: false, needsRole, reason: roleHasIt ? `needs a token with ${scope}` : `needs ${needsRole}` };
}


export function roleAtLeast(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least);
}

/** May the signed-in token use this scope (or send this method)? */
export function useCan(what: Scope | ConsoleAction): Permission {
  const session = useSession();
  const scope: Scope = what in actionScopes ? actionScopes[what as ConsoleAction] : (what as Scope);
  return permissionFor(session.data?.scopes, session.data?.user.role, scope);
}
