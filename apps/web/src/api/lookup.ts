/**
 * "Go to id": the server says which record an id names (runtime.lookup, any id the console
 * shows, incident, server and token ids, and `kind:id` sources), and the console opens the page for
 * it. Id formats are not the console's business.
 */
import type { Result } from '@switchboard/contract';
import { ApiError, rpc } from './client';
import { paths } from '../paths';

export type LookupHit = Result<'runtime.lookup'>;

/** Where each kind of record opens (a person: their actions in the audit trail); undefined for a token. */
export function pathOf(hit: LookupHit): string | undefined {
  switch (hit.kind) {
    case 'event':
      return paths.event(hit.id);
    case 'run':
      return paths.run(hit.id);
    case 'entity':
      return paths.entity(hit.id);
    case 'agent':
      return paths.agent(hit.id);
    case 'session':
      return paths.session(hit.id);
    case 'mailbox':
      return paths.mailbox(hit.id);
    case 'turn':
      return paths.turn(hit.session_id!, hit.id);
    case 'dead_letter':
      return paths.deadLetter(hit.event_id!, hit.id);
    case 'delivery':
      return paths.delivery(hit.event_id!, hit.id);
    case 'log':
      return hit.incident_id ? paths.incident(hit.incident_id) : hit.event_id ? paths.event(hit.event_id) : paths.incidents();
    case 'operation':
      return paths.operation(hit.id);
    case 'incident':
      return paths.incident(hit.id);
    case 'server':
      return paths.servers();
    case 'subscriber':
      return paths.subscriber(hit.id);
    case 'token':
      return undefined;
    case 'user':
      return paths.actor(hit.id);
  }
}

/** What an id names without a page of its own, in words (shown where the answer appears). */
export function describeHit(hit: LookupHit): string {
  if (hit.kind === 'token') {
    const token = hit.name ? `Access token “${hit.name}” (${hit.id})` : `Access token ${hit.id}`;
    const person = hit.user_name ? ` of ${hit.user_name}${hit.role ? ` (${hit.role})` : ''}` : '';
    return `${token}${person}. Tokens have no page.`;
  }
  return `${hit.kind} ${hit.id}`;
}

/** The page for an id (or, for a record with none, what it is), or null when no record has it. */
export async function lookupId(raw: string): Promise<{ kind: LookupHit['kind']; path?: string; text: string } | null> {
  const id = raw.trim();
  if (!id) return null;
  try {
    const hit = await rpc('runtime.lookup', { id });
    return { kind: hit.kind, path: pathOf(hit), text: describeHit(hit) };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}
