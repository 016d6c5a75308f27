/**
 * Agent state and conversation writes: agents declared by the bundle, their sessions, and each
 * turn recorded with the session, agent and delivery it touches, in the delivery's transaction.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AgentsTable, ConversationsTable, Database, TurnsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { markChange, type ChangeFeedRepository } from '../change-feed';
import { ACTIVE } from './active-conversation';

export type AgentIdentity = Pick<AgentsTable, 'type' | 'role' | 'model_tier' | 'conversation_mode' | 'session_scope'>;
export type SessionRow = Selectable<ConversationsTable>;
export type NewSessionRow = Omit<Insertable<ConversationsTable>, 'seq'>;

export interface TurnRecord {
  turn: Insertable<TurnsTable>;
  messages_added: number;
  agent: { agent_id: string; status: string; updated_at: string };
  delivery_id: string;
}

export class AgentWriteRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
  ) {}

  /** Inserts a declared agent idle, or updates the identity of one already known (its state stays). */
  async register(agentId: string, identity: AgentIdentity, nowIso: string): Promise<void> {
    await this.db
      .insertInto('agents')
      .values({ agent_id: agentId, ...identity, status: 'idle', current_session_id: null, last_turn_id: null, updated_at: nowIso })
      .onConflict((oc) => oc.column('agent_id').doUpdateSet({ ...identity, updated_at: nowIso }))
      .execute();
  }

  /** Agents left busy (by a process that died mid-turn) become idle. */
  async idleBusyAgents(nowIso: string): Promise<void> {
    await this.db.updateTable('agents').set({ status: 'idle', updated_at: nowIso }).where('status', '=', 'busy').execute();
  }

  async setStatus(agentId: string, status: string, nowIso: string): Promise<void> {
    await this.changes.write('agents', undefined, (trx) => trx.updateTable('agents').set({ status, updated_at: nowIso }).where('agent_id', '=', agentId).execute());
  }

  /** The newest active session of an agent for a scope. */
  activeSession(agentId: string, scopeKey: string, tx?: StoreTx): Promise<SessionRow | undefined> {
    return (tx ? executorOf(tx) : this.db)
      .selectFrom('conversations')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('scope_key', '=', scopeKey)
      .where('status', '=', ACTIVE)
      .orderBy('seq', 'desc')
      .executeTakeFirst();
  }

  async openSession(tx: StoreTx, row: NewSessionRow): Promise<void> {
    markChange(tx, 'agents');
    await executorOf(tx).insertInto('conversations').values(row).execute();
  }

  /** The last `limit` turns of a session whose answer parsed, newest first. */
  parsedTurns(sessionId: string, limit: number): Promise<{ request_payload: string | null; response_payload: string | null }[]> {
    return this.db
      .selectFrom('turns')
      .select(['request_payload', 'response_payload'])
      .where('session_id', '=', sessionId)
      .where('parse_ok', '=', 1)
      .orderBy('turn_index', 'desc')
      .limit(limit)
      .execute();
  }

  /** The turn, its session's counts, the agent's state and the delivery's session link. */
  async recordTurn(tx: StoreTx, record: TurnRecord): Promise<void> {
    const trx = executorOf(tx);
    markChange(tx, 'agents');
    const { turn } = record;
    await trx.insertInto('turns').values(turn).execute();
    await trx
      .updateTable('conversations')
      .set((eb) => ({ turn_count: eb('turn_count', '+', 1), message_count: eb('message_count', '+', record.messages_added) }))
      .where('session_id', '=', turn.session_id)
      .execute();
    await trx
      .updateTable('agents')
      .set({ status: record.agent.status, current_session_id: turn.session_id, last_turn_id: turn.turn_id, updated_at: record.agent.updated_at })
      .where('agent_id', '=', record.agent.agent_id)
      .execute();
    await trx.updateTable('deliveries').set({ session_id: turn.session_id }).where('delivery_id', '=', record.delivery_id).execute();
  }
}
