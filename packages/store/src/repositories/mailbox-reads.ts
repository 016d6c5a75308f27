import { type Kysely, type Selectable } from 'kysely';
import type { PayloadCondition } from '@switchboard/contract';
import type { Database, MailboxHistoryTable, MailboxItemsTable } from '../schema';
import type { StoreEngine } from '../engines/engine';

export interface MailboxFilter {
  status?: string;
  type?: string;
  source_flow?: string;
  priority?: string;
  reason_code?: string;
  /** Conditions on the item's payload, all of which hold (docs/payload-search.md). */
  payload?: PayloadCondition[];
}

/** Where a page ended: pending items come first, then the rest; newest first within each part. */
export interface MailboxPosition {
  pending: boolean;
  seq: number;
}

export type MailboxItemRow = Selectable<MailboxItemsTable>;
export type MailboxHistoryRow = Selectable<MailboxHistoryTable>;

/** A mailbox item's decision snapshots (JSON text) and its history, as an export reads them per page. */
export interface MailboxDecisionRecords {
  decided_sheet: string | null;
  emitted_payload: string | null;
  emitted_event_id: string | null;
  history: (MailboxHistoryRow & { actor_token_name: string | null })[];
}

export interface MailboxPage {
  items: MailboxItemRow[];
  next?: MailboxPosition;
}

/**
 * Read side of the mailbox. The list is walked in two parts (pending, then decided), each newest
 * first by insertion order, so a keyset position is (part, seq) and each part is an index range.
 */
export class MailboxReadRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  async page(filter: MailboxFilter, options: { limit: number; after?: MailboxPosition }): Promise<MailboxPage> {
    const { limit, after } = options;
    const take = limit + 1;
    const base = () => {
      let q = this.db.selectFrom('mailbox_items').selectAll();
      if (filter.status !== undefined) q = q.where('status', '=', filter.status);
      if (filter.type !== undefined) q = q.where('type', '=', filter.type);
      if (filter.source_flow !== undefined) q = q.where('source_flow', '=', filter.source_flow);
      if (filter.priority !== undefined) q = q.where('priority', '=', filter.priority);
      if (filter.reason_code !== undefined) q = q.where('reason_code', '=', filter.reason_code);
      for (const condition of filter.payload ?? []) q = q.where(this.engine.payloadCondition('mailbox_items.payload', condition));
      return q.orderBy('seq', 'desc').limit(take);
    };
    const rows: { row: MailboxItemRow; pending: boolean }[] = [];
    const wantPending = filter.status === undefined || filter.status === 'pending';
    const wantDecided = filter.status !== 'pending';
    if (wantPending && (after === undefined || after.pending)) {
      let q = base().where('status', '=', 'pending');
      if (after) q = q.where('seq', '<', after.seq);
      for (const row of await q.execute()) rows.push({ row, pending: true });
    }
    if (wantDecided && rows.length < take) {
      let q = base().where('status', '<>', 'pending');
      if (after && !after.pending) q = q.where('seq', '<', after.seq);
      for (const row of await q.limit(take - rows.length).execute()) rows.push({ row, pending: false });
    }
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const items = page.map((r) => r.row);
    return rows.length > limit && last ? { items, next: { pending: last.pending, seq: Number(last.row.seq) } } : { items };
  }

  async get(mailboxId: string): Promise<{ item: MailboxItemRow; history: (MailboxHistoryRow & { actor_token_name: string | null })[] } | undefined> {
    const item = await this.db.selectFrom('mailbox_items').selectAll().where('mailbox_id', '=', mailboxId).executeTakeFirst();
    if (!item) return undefined;
    return { item, history: await this.historyOf([mailboxId]) };
  }

  /**
   * For a page of items (an export), what mailbox.get shows beside each one: the snapshots taken
   * when it was decided and its history with the actors' token names, oldest first. Two queries
   * for the whole page rather than two per item.
   */
  async decisionRecordsOf(mailboxIds: readonly string[]): Promise<Map<string, MailboxDecisionRecords>> {
    const byItem = new Map<string, MailboxDecisionRecords>();
    if (mailboxIds.length === 0) return byItem;
    const ids = [...mailboxIds];
    const snapshots = await this.db
      .selectFrom('mailbox_items')
      .select(['mailbox_id', 'decided_sheet', 'emitted_payload', 'emitted_event_id'])
      .where('mailbox_id', 'in', ids)
      .execute();
    for (const s of snapshots) byItem.set(s.mailbox_id, { ...s, history: [] });
    for (const row of await this.historyOf(ids)) byItem.get(row.mailbox_id)?.history.push(row);
    return byItem;
  }

  /** The history of these items with the actors' token names, oldest first. */
  private historyOf(mailboxIds: string[]) {
    return this.db
      .selectFrom('mailbox_history as h')
      .leftJoin('tokens as t', 't.id', 'h.actor_token_id')
      .selectAll('h')
      .select('t.name as actor_token_name')
      .where('h.mailbox_id', 'in', mailboxIds)
      .orderBy('h.seq')
      .execute();
  }

  /** Rejected items per (type, reason code); items rejected without a code are not counted. */
  async rejectCounts(type?: string): Promise<{ type: string; reason_code: string; count: number }[]> {
    let q = this.db
      .selectFrom('mailbox_items')
      .select(['type', 'reason_code', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'rejected')
      .where('reason_code', 'is not', null)
      .groupBy(['type', 'reason_code']);
    if (type !== undefined) q = q.where('type', '=', type);
    const rows = await q.execute();
    return rows.map((r) => ({ type: r.type, reason_code: r.reason_code!, count: Number(r.n) }));
  }
}
