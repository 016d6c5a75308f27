import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { ConversationsTable, Database, TurnsTable } from '../schema';

export interface ConversationFilter {
  agent_id?: string;
  run_id?: string;
  status?: string;
}

/** Where a page ended in (started_at DESC, seq DESC) order. */
export interface ConversationPosition {
  started_at: string;
  seq: number;
}

export type ConversationRow = Selectable<ConversationsTable>;
export type TurnRow = Selectable<TurnsTable>;

export interface ConversationPage {
  conversations: ConversationRow[];
  next?: ConversationPosition;
}

/** Read side of agent conversations (sessions) and their turns. */
export class ConversationReadRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async page(filter: ConversationFilter, options: { limit: number; after?: ConversationPosition }): Promise<ConversationPage> {
    const { limit, after } = options;
    let q = this.db.selectFrom('conversations').selectAll();
    if (filter.agent_id !== undefined) q = q.where('agent_id', '=', filter.agent_id);
    if (filter.run_id !== undefined) q = q.where('run_id', '=', filter.run_id);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    if (after) {
      q = q
        .where('started_at', '<=', after.started_at)
        .where(sql<SqlBool>`(${sql.ref('started_at')} < ${after.started_at} or ${sql.ref('seq')} < ${after.seq})`);
    }
    const rows = await q.orderBy('started_at', 'desc').orderBy('seq', 'desc').limit(limit + 1).execute();
    const conversations = rows.slice(0, limit);
    const last = conversations[conversations.length - 1];
    return rows.length > limit && last ? { conversations, next: { started_at: last.started_at, seq: Number(last.seq) } } : { conversations };
  }

  async get(sessionId: string): Promise<{ conversation: ConversationRow; turns: TurnRow[] } | undefined> {
    const conversation = await this.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
    if (!conversation) return undefined;
    const turns = await this.db.selectFrom('turns').selectAll().where('session_id', '=', sessionId).orderBy('turn_index').execute();
    return { conversation, turns };
  }
}
