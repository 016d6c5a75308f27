import type { Kysely, Selectable } from 'kysely';
import { executorOf, type StoreTx } from '../store-tx';
import type { Database, ResetsTable } from '../schema';

export type ResetRow = Selectable<ResetsTable>;

const TOOL_FAULTS_KEY = 'tool_faults:';

/**
 * The runtime's own records: the reset audit trail, which simulated tool servers an operator
 * turned faults off for, and the totals the demo reports.
 */
export class RuntimeRecordReads {
  constructor(private readonly db: Kysely<Database>) {}

  /** Reset audit records, newest first. */
  /** Reset audit records, newest first, with the name of the token that asked (when it still exists). */
  resets(limit: number): Promise<(ResetRow & { actor_token_name: string | null })[]> {
    return this.db
      .selectFrom('resets as r')
      .leftJoin('tokens as t', 't.id', 'r.actor_token_id')
      .selectAll('r')
      .select('t.name as actor_token_name')
      .orderBy('r.started_at', 'desc')
      .orderBy('r.reset_id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Tool servers whose faults an operator switched, with the switch ('on' or 'off'). */
  async toolFaults(): Promise<Map<string, 'on' | 'off'>> {
    const rows = await this.db.selectFrom('runtime_state').select(['key', 'value']).where('key', 'like', `${TOOL_FAULTS_KEY}%`).execute();
    return new Map(rows.map((r) => [r.key.slice(TOOL_FAULTS_KEY.length), r.value === 'off' ? 'off' : 'on']));
  }

  async setToolFaults(tx: StoreTx, server: string, faults: 'on' | 'off'): Promise<void> {
    await executorOf(tx)
      .insertInto('runtime_state')
      .values({ key: `${TOOL_FAULTS_KEY}${server}`, value: faults })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: faults }))
      .execute();
  }

  /** Totals of what the runtime has done, for the demo's summary. */
  async activityTotals(): Promise<ActivityTotals> {
    const db = this.db;
    const n = async (q: Promise<{ n: number | string | bigint } | undefined>) => Number((await q)?.n ?? 0);
    const countOf = (table: 'events' | 'dead_letters' | 'turns' | 'conversations') => db.selectFrom(table as 'events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return {
      pending_mailbox_items: await n(db.selectFrom('mailbox_items').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirst()),
      events: await n(countOf('events')),
      dead_letters: await n(countOf('dead_letters')),
      retried_deliveries: await n(db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('attempts', '>', 1).executeTakeFirst()),
      turns: await n(countOf('turns')),
      failed_parses: await n(db.selectFrom('turns').select((eb) => eb.fn.countAll<number>().as('n')).where('parse_ok', '=', 0).executeTakeFirst()),
      conversations: await n(countOf('conversations')),
    };
  }

  /** True while nothing has ever been published and no reset ran: a store the demo may seed. */
  async neverUsed(): Promise<boolean> {
    const event = await this.db.selectFrom('events').select('seq').limit(1).executeTakeFirst();
    return !event && (await this.resets(1)).length === 0;
  }
}

export interface ActivityTotals {
  pending_mailbox_items: number;
  events: number;
  dead_letters: number;
  retried_deliveries: number;
  turns: number;
  failed_parses: number;
  conversations: number;
}
