/**
 * "Go to id": finds what kind of record an id names by asking the server, so the console does not
 * depend on id formats. Every probe runs at once; the first kind that exists wins.
 */
import { ApiError, rpc } from './client';
import { paths } from '../paths';

export type RecordKind = 'event' | 'run' | 'entity' | 'agent' | 'session' | 'mailbox';

export interface LookupHit {
  kind: RecordKind;
  path: string;
}

/** Not-found style answers mean "not this kind"; anything else (network, auth) is a real failure. */
function isMiss(err: unknown): boolean {
  return err instanceof ApiError && ['NOT_FOUND', 'METHOD_NOT_FOUND', 'INVALID_PARAMS'].includes(err.code);
}

export async function lookupId(raw: string): Promise<LookupHit | null> {
  const id = raw.trim();
  if (!id) return null;
  const probes: [RecordKind, () => Promise<boolean>][] = [
    ['event', async () => (await rpc('event.list', { filter: { event_id: id }, limit: 1 })).events.length > 0],
    ['run', async () => Boolean(await rpc('run.get', { run_id: id }))],
    ['mailbox', async () => Boolean(await rpc('mailbox.get', { mailbox_id: id }))],
    ['session', async () => Boolean(await rpc('conversation.get', { session_id: id }))],
    ['agent', async () => Boolean(await rpc('agent.get', { agent_id: id }))],
    ['entity', async () => (await rpc('event.list', { filter: { entity_id: id }, limit: 1 })).events.length > 0],
  ];
  const outcomes = await Promise.allSettled(probes.map(([, probe]) => probe()));
  let failure: unknown;
  for (let i = 0; i < probes.length; i++) {
    const outcome = outcomes[i]!;
    if (outcome.status === 'fulfilled' && outcome.value) {
      const kind = probes[i]![0];
      return { kind, path: paths[kind](id) };
    }
    if (outcome.status === 'rejected' && !isMiss(outcome.reason)) failure ??= outcome.reason;
  }
  if (failure) throw failure;
  return null;
}
