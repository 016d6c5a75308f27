/**
 * Who may call what, as plain data (no zod, so the console can ship it): every method declares
 * one scope; a role is a set of scopes; a token belongs to a user (whose role grants scopes) and
 * may be narrowed further to explicit scopes. The spec's rule still holds for v1 tokens: one
 * without restrictions, held by an admin, grants every scope.
 */
export const SCOPES = [
  'read',
  'heartbeat',
  'metrics',
  'audit:read',
  'mailbox:decide',
  'events:publish',
  'runtime:pause',
  'events:redrive',
  'incidents:write',
  'tool_servers:faults',
  'alerts:write',
  'runtime:reset',
  'users:admin',
] as const;
export type Scope = (typeof SCOPES)[number];
export const scopeDescriptions: Record<Scope, string> = {
  read: "every read method (lists, gets, status, catalog, lookup, rpc.discover), and one's own saved views (view.*)",
  heartbeat: 'health.ping, health.check, heartbeat subscriptions and the WebSocket upgrade',
  metrics: 'GET /metrics (Prometheus scrapes)',
  'audit:read': 'audit.list',
  'mailbox:decide': 'mailbox.approve, mailbox.reject',
  'events:publish': 'event.publish, run.start',
  'runtime:pause': 'runtime.pause, runtime.resume',
  'events:redrive': 'event.redrive, event.replay, operation.cancel',
  'incidents:write': 'runtime.incident_update',
  'tool_servers:faults': 'runtime.set_tool_server_faults',
  'alerts:write': 'alert rules, destinations, test notices and silences',
  'runtime:reset': 'runtime.nuke, runtime.retention_run',
  'users:admin': 'user.* and token.* (people and their tokens)',
};

export const ROLES = ['viewer', 'reviewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
const viewer: readonly Scope[] = ['read', 'heartbeat', 'metrics', 'audit:read'];
const reviewer: readonly Scope[] = [...viewer, 'mailbox:decide'];
const operator: readonly Scope[] = [...reviewer, 'events:publish', 'runtime:pause', 'events:redrive', 'incidents:write', 'tool_servers:faults', 'alerts:write'];
const admin: readonly Scope[] = [...operator, 'runtime:reset', 'users:admin'];

/** Each role's scopes; each role includes the one before it. */
export const roleScopes: Record<Role, readonly Scope[]> = { viewer, reviewer, operator, admin };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The least role that holds a scope (for "needs operator" and FORBIDDEN details). */
export function leastRoleFor(s: Scope): Role {
  return ROLES.find((r) => roleScopes[r].includes(s))!;
}

/**
 * What a token may do: its user's role's scopes, narrowed to the token's own list when it has one
 * (a narrowed token never gains a scope its user's role lacks).
 */
export function effectiveScopes(userRole: Role, tokenScopes: readonly string[] | null | undefined): Scope[] {
  const granted = roleScopes[userRole];
  if (!tokenScopes) return [...granted];
  return granted.filter((s) => tokenScopes.includes(s));
}
