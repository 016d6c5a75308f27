/**
 * The console's screens: one entry per route. `nav` puts it in the header navigation; screens load
 * their own code on first visit (route-level splitting). Adding a screen is one line here.
 */
import type { ComponentType } from 'react';
import type { Role, Scope } from '@switchboard/contract/roles';

export interface ScreenRoute {
  /** Path under the app root; a trailing `/*` lets a screen own its sub-paths (e.g. `agents/*`). */
  path: string;
  /** Label in the header navigation; omit for routes reached only by link. */
  nav?: string;
  /** The scope a screen is for: without it, the screen is left out of the navigation. */
  needs?: Scope;
  load: () => Promise<{ default: ComponentType }>;
}

export const screens: ScreenRoute[] = [
  { path: 'incidents', nav: 'Incidents', load: () => import('./screens/incidents/IncidentsScreen') },
  { path: 'events', nav: 'Events', load: () => import('./screens/events/EventsScreen') },
  { path: 'dead-letters', nav: 'Dead letters', load: () => import('./screens/events/DeadLettersScreen') },
  { path: 'mailbox/*', nav: 'Mailbox', load: () => import('./screens/mailbox/MailboxScreen') },
  { path: 'agents/*', nav: 'Agents', load: () => import('./screens/agents/AgentsScreen') },
  { path: 'conversations/*', nav: 'Conversations', load: () => import('./screens/conversations/ConversationsScreen') },
  { path: 'runtime', nav: 'Runtime', load: () => import('./screens/runtime/RuntimeScreen') },
  { path: 'alerts/*', nav: 'Alerts', needs: 'read', load: () => import('./screens/alerts/AlertsScreen') },
  { path: 'audit', nav: 'Audit', needs: 'audit:read', load: () => import('./screens/audit/AuditScreen') },
  { path: 'admin', nav: 'Admin', needs: 'users:admin', load: () => import('./screens/admin/AdminScreen') },
];

/** Where "/" goes: a reviewer's work is the mailbox; everyone else starts with incidents. */
export function homePathFor(role: Role | undefined): string {
  return role === 'reviewer' ? '/mailbox' : '/incidents';
}
