import type { Agent, LastTurnRef, SessionRef } from '@switchboard/contract';
import type { AgentView } from '@switchboard/store';
import { omitAbsent } from './omit-absent';

export function toAgent(view: AgentView): Agent {
  const a = view.agent;
  return {
    agent_id: a.agent_id,
    type: a.type,
    role: a.role,
    model_tier: a.model_tier,
    conversation_mode: a.conversation_mode as Agent['conversation_mode'],
    session_scope: a.session_scope as Agent['session_scope'],
    status: a.status as Agent['status'],
  };
}

/** References only: agent.* never returns transcripts. */
export function agentRefs(view: AgentView): { current_session_ref?: SessionRef; last_turn_ref?: LastTurnRef } {
  return omitAbsent({
    current_session_ref: view.current_session,
    last_turn_ref: view.last_turn ? omitAbsent(view.last_turn) : undefined,
  });
}
