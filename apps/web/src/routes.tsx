/**
 * The console's screens: one entry per route. `nav` puts it in the header navigation; screens load
 * their own code on first visit (route-level splitting). Adding a screen is one line here.
 */
import type { ComponentType } from 'react';

export interface ScreenRoute {
  /** Path under the app root; a trailing `/*` lets a screen own its sub-paths (e.g. `agents/*`). */
  path: string;
  /** Label in the header navigation; omit for routes reached only by link. */
  nav?: string;
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
];

/** Where "/" goes. */
export const homePath = '/incidents';
