import { sql, type Kysely, type Selectable } from 'kysely';
import type { AgentsTable, Database } from '../schema';
import { ACTIVE } from './active-conversation';

export interface AgentSessionRef {
  session_id: string;
  started_at: string;
}

export interface AgentLastTurnRef {
  turn_id: string;
  completed_at: string;
  parse_ok: boolean;
  error: string | null;
}

export interface AgentView {
  agent: Selectable<AgentsTable>;
  current_session?: AgentSessionRef;
  last_turn?: AgentLastTurnRef;
}

/** Where an agents page ended: agents are listed by id. */
export interface AgentPosition {
  agent_id: string;
}

export interface AgentPage {
  agents: AgentView[];
  /** The last agent's position, when more agents follow. */
  next?: AgentPosition;
}

/**
 * Agents with references (never transcripts) to their current session and last turn. The agent
 * row's own pointers win; without them the current session is the agent's newest active
 * conversation and the last turn its latest completed turn. Refs for a page take two queries.
 */
export class AgentReadRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async page(options: { limit: number; after?: AgentPosition }): Promise<AgentPage> {
    let q = this.db.selectFrom('agents').selectAll();
    if (options.after !== undefined) q = q.where('agent_id', '>', options.after.agent_id);
    const rows = await q.orderBy('agent_id').limit(options.limit + 1).execute();
    const page = rows.slice(0, options.limit);
    const agents = await this.withRefs(page);
    const last = page[page.length - 1];
    return rows.length > options.limit && last ? { agents, next: { agent_id: last.agent_id } } : { agents };
  }

  async get(agentId: string): Promise<AgentView | undefined> {
    const row = await this.db.selectFrom('agents').selectAll().where('agent_id', '=', agentId).executeTakeFirst();
    if (!row) return undefined;
    const [view] = await this.withRefs([row]);
    return view;
  }

  private async withRefs(agents: Selectable<AgentsTable>[]): Promise<AgentView[]> {
    if (agents.length === 0) return [];
    const ids = agents.map((a) => a.agent_id);
    const sessions = await this.db
      .selectFrom(
        this.db
          .selectFrom('conversations')
          .select([
            'agent_id',
            'session_id',
            'started_at',
            'status',
            sql<number>`row_number() over (partition by ${sql.ref('agent_id')} order by ${sql.ref('started_at')} desc, ${sql.ref('seq')} desc)`.as('rn'),
          ])
          .where('agent_id', 'in', ids)
          .where('status', '=', ACTIVE)
          .as('c'),
      )
      .selectAll()
      .where('c.rn', '=', 1)
      .execute();
    const pointedSessions = agents.flatMap((a) => (a.current_session_id ? [a.current_session_id] : []));
    const pointed =
      pointedSessions.length > 0
        ? await this.db.selectFrom('conversations').select(['session_id', 'started_at']).where('session_id', 'in', pointedSessions).execute()
        : [];
    const turns = await this.db
      .selectFrom(
        this.db
          .selectFrom('turns as t')
          .innerJoin('conversations as c', 'c.session_id', 't.session_id')
          .select([
            'c.agent_id',
            't.turn_id',
            't.completed_at',
            't.parse_ok',
            't.error',
            sql<number>`row_number() over (partition by ${sql.ref('c.agent_id')} order by ${sql.ref('t.completed_at')} desc, ${sql.ref('t.turn_index')} desc)`.as('rn'),
          ])
          .where('c.agent_id', 'in', ids)
          .as('lt'),
      )
      .selectAll()
      .where('lt.rn', '=', 1)
      .execute();
    const pointedTurnIds = agents.flatMap((a) => (a.last_turn_id ? [a.last_turn_id] : []));
    const pointedTurns =
      pointedTurnIds.length > 0
        ? await this.db.selectFrom('turns').select(['turn_id', 'completed_at', 'parse_ok', 'error']).where('turn_id', 'in', pointedTurnIds).execute()
        : [];
    const sessionById = new Map(pointed.map((s) => [s.session_id, s]));
    const latestSession = new Map(sessions.map((s) => [s.agent_id, s]));
    const turnById = new Map(pointedTurns.map((t) => [t.turn_id, t]));
    const latestTurn = new Map(turns.map((t) => [t.agent_id, t]));
    return agents.map((agent) => {
      const view: AgentView = { agent };
      const session = (agent.current_session_id ? sessionById.get(agent.current_session_id) : undefined) ?? latestSession.get(agent.agent_id);
      if (session) view.current_session = { session_id: session.session_id, started_at: session.started_at };
      const turn = (agent.last_turn_id ? turnById.get(agent.last_turn_id) : undefined) ?? latestTurn.get(agent.agent_id);
      if (turn) view.last_turn = { turn_id: turn.turn_id, completed_at: turn.completed_at, parse_ok: Number(turn.parse_ok) === 1, error: turn.error };
      return view;
    });
  }
}
