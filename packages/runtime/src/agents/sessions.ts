/**
 * Conversation sessions. The agent's session_scope decides which session answers a delivery:
 * global (one active session per agent), run (one per run) or entity (one per entity).
 */
import type { SessionRow, Store, StoreTx } from '@switchboard/store';
import type { AgentDefinition } from '../bundle/schema';
import type { EventRecord } from '../handler';
import { newId } from '../ids';

export function scopeKeyFor(agent: AgentDefinition, event: EventRecord): string {
  if (agent.session_scope === 'global') return 'global';
  if (agent.session_scope === 'entity' && event.entity_id) return `entity:${event.entity_id}`;
  // An entity-scoped agent answering an event without an entity falls back to its run.
  return `run:${event.run_id ?? event.event_id}`;
}

/** Inside the delivery's transaction, so two turns for one scope cannot open two sessions. */
export async function findOrOpenSession(store: Store, tx: StoreTx, agent: AgentDefinition, event: EventRecord, now: Date): Promise<SessionRow> {
  const scope_key = scopeKeyFor(agent, event);
  const existing = await store.agentWrites.activeSession(agent.agent_id, scope_key, tx);
  if (existing) return existing;
  const row = {
    session_id: newId('ses', now),
    agent_id: agent.agent_id,
    scope_key,
    started_at: now.toISOString(),
    status: 'active',
    message_count: 0,
    turn_count: 0,
    ended_at: null,
    run_id: agent.session_scope === 'global' ? null : event.run_id,
  };
  await store.agentWrites.openSession(tx, row);
  return { ...row, seq: 0 };
}
