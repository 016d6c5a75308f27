/** The bundle's agents as rows of the store, registered at boot. */
import type { Clock, Store } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import type { ServerRegistry } from '../membership/server-registry';

export async function registerAgents(store: Store, bundle: LoadedBundle, clock: Clock, nodes: Pick<ServerRegistry, 'liveServers'>): Promise<void> {
  const nowIso = clock.now().toISOString();
  for (const a of bundle.definition.agents) {
    const identity = { type: a.type, role: a.role, model_tier: a.model_tier, conversation_mode: a.conversation_mode, session_scope: a.session_scope };
    await store.agentWrites.register(a.agent_id, identity, nowIso);
  }
  // A process that died mid-turn leaves its agents marked busy; their deliveries will be
  // reclaimed. With other live servers, a busy agent may be theirs: leave it.
  if ((await nodes.liveServers()).every((n) => n.self)) await store.agentWrites.idleBusyAgents(nowIso);
}
