import type { Kysely } from 'kysely';
import type { Database } from '../schema';

export type RecordKind =
  | 'event'
  | 'run'
  | 'entity'
  | 'agent'
  | 'session'
  | 'mailbox'
  | 'turn'
  | 'dead_letter'
  | 'delivery'
  | 'log'
  | 'operation'
  | 'server'
  | 'token'
  | 'subscriber'
  | 'user';

/** Event sources the runtime writes (`kind:id`), and the record kind the id after the colon names. */
const SOURCE_KINDS: Record<string, RecordKind> = { node: 'subscriber', agent: 'agent', mailbox: 'mailbox', replay: 'operation' };

/** What names a record and what the console needs to open it. */
export interface FoundRecord {
  kind: RecordKind;
  id: string;
  event_id?: string | null;
  session_id?: string | null;
  /** Log records: the incident group and level rank, so a warning opens its incident. */
  component?: string;
  error_code?: string | null;
  cause_key?: string;
  level_rank?: number;
  /** Tokens: the token's name. */
  name?: string;
  /** Tokens: the person the token acts for. */
  user_id?: string | null;
  user_name?: string | null;
  role?: string | null;
}

/**
 * "Go to id": which record an id names, whatever its format. Every id column probed is a primary
 * key or unique index, so a lookup is a handful of point reads, in a fixed order.
 */
export class LookupRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(id: string): Promise<FoundRecord | undefined> {
    const db = this.db;
    const probes: (() => Promise<FoundRecord | undefined>)[] = [
      async () => ((await db.selectFrom('events').select('event_id').where('event_id', '=', id).executeTakeFirst()) ? { kind: 'event', id, event_id: id } : undefined),
      async () => ((await db.selectFrom('runs').select('run_id').where('run_id', '=', id).executeTakeFirst()) ? { kind: 'run', id } : undefined),
      async () => ((await db.selectFrom('mailbox_items').select('mailbox_id').where('mailbox_id', '=', id).executeTakeFirst()) ? { kind: 'mailbox', id } : undefined),
      async () => ((await db.selectFrom('conversations').select('session_id').where('session_id', '=', id).executeTakeFirst()) ? { kind: 'session', id, session_id: id } : undefined),
      async () => ((await db.selectFrom('agents').select('agent_id').where('agent_id', '=', id).executeTakeFirst()) ? { kind: 'agent', id } : undefined),
      async () => ((await db.selectFrom('entities').select('entity_id').where('entity_id', '=', id).executeTakeFirst()) ? { kind: 'entity', id } : undefined),
      // An entity id events carry without an entity record (no flow tracks it) still opens its events.
      async () => ((await db.selectFrom('events').select('event_id').where('entity_id', '=', id).limit(1).executeTakeFirst()) ? { kind: 'entity', id } : undefined),
      async () => {
        const t = await db.selectFrom('turns').select(['turn_id', 'session_id', 'trigger_event_id']).where('turn_id', '=', id).executeTakeFirst();
        return t ? { kind: 'turn', id, session_id: t.session_id, event_id: t.trigger_event_id } : undefined;
      },
      async () => {
        const l = await db.selectFrom('dead_letters').select(['dead_letter_id', 'event_id']).where('dead_letter_id', '=', id).executeTakeFirst();
        return l ? { kind: 'dead_letter', id, event_id: l.event_id } : undefined;
      },
      async () => {
        const d = await db.selectFrom('deliveries').select(['delivery_id', 'event_id', 'session_id']).where('delivery_id', '=', id).executeTakeFirst();
        return d ? { kind: 'delivery', id, event_id: d.event_id, session_id: d.session_id } : undefined;
      },
      async () => {
        const r = await db.selectFrom('logs').select(['log_id', 'event_id', 'session_id', 'component', 'error_code', 'cause_key', 'level_rank']).where('log_id', '=', id).executeTakeFirst();
        return r ? { kind: 'log', id, event_id: r.event_id, session_id: r.session_id, component: r.component, error_code: r.error_code, cause_key: r.cause_key, level_rank: Number(r.level_rank) } : undefined;
      },
      async () => ((await db.selectFrom('operations').select('operation_id').where('operation_id', '=', id).executeTakeFirst()) ? { kind: 'operation', id } : undefined),
      async () => ((await db.selectFrom('servers').select('server_id').where('server_id', '=', id).executeTakeFirst()) ? { kind: 'server', id } : undefined),
      async () => {
        const t = await db
          .selectFrom('tokens')
          .leftJoin('users', 'users.id', 'tokens.user_id')
          .select(['tokens.id', 'tokens.name', 'tokens.user_id', 'users.display_name', 'users.role'])
          .where('tokens.id', '=', id)
          .executeTakeFirst();
        return t ? { kind: 'token', id, name: t.name, user_id: t.user_id, user_name: t.display_name, role: t.role } : undefined;
      },
      async () => {
        const u = await db.selectFrom('users').select(['id', 'display_name', 'role']).where('id', '=', id).executeTakeFirst();
        return u ? { kind: 'user', id, user_id: u.id, user_name: u.display_name, role: u.role } : undefined;
      },
    ];
    for (const probe of probes) {
      const found = await probe();
      if (found) return found;
    }
    return this.findSource(id);
  }

  /** An event source (`node:pay-refund`, `mailbox:mbx_…`): the record the part after the colon names. */
  private async findSource(source: string): Promise<FoundRecord | undefined> {
    const colon = source.indexOf(':');
    const kind = colon > 0 ? SOURCE_KINDS[source.slice(0, colon)] : undefined;
    const id = source.slice(colon + 1);
    if (!kind || !id) return undefined;
    if (kind === 'subscriber') {
      const d = await this.db.selectFrom('deliveries').select('subscriber_id').where('subscriber_id', '=', id).where('subscriber_type', '=', 'node').limit(1).executeTakeFirst();
      return d ? { kind: 'subscriber', id } : undefined;
    }
    const found = await this.find(id);
    return found?.kind === kind ? found : undefined;
  }
}
