import { createHash } from 'node:crypto';
import type { PayloadCondition } from '@switchboard/contract';
import { sql, type ExpressionBuilder, type Expression, type Insertable, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database, DeadLettersTable, DeliveriesTable, EventsTable } from '../schema';
import { markChange, type ChangeFeedRepository } from '../change-feed';
import { storeTxOf } from '../store-tx';
import type { StoreEngine } from '../engines/engine';

/**
 * Filters of the canonical event query. Each one narrows the set of events independently:
 * `subscriber_id` keeps events with a delivery to that subscriber, `reason_code` keeps events with a
 * delivery or a dead letter carrying that reason code; `since` is inclusive, `until` exclusive.
 */
export interface EventFilter {
  event_id?: string;
  entity_id?: string;
  event_name?: string;
  /** Names starting with this; a range on the text, so the name index can serve it. */
  event_name_prefix?: string;
  run_id?: string;
  has_dead_letter?: boolean;
  subscriber_id?: string;
  reason_code?: string;
  /** Keeps events with a dead letter not yet redriven (false) or one already redriven (true). */
  dead_letter_redriven?: boolean;
  /** Conditions on the payload, all of which hold (docs/payload-search.md). */
  payload?: PayloadCondition[];
  since?: string;
  until?: string;
}

/** How a page with payload conditions was searched (event.list's payload_search). */
export interface PayloadSearchReport {
  /** An eq or in condition is on a path with an index (a declared field). */
  indexed: boolean;
  /** The page stopped at the scan bound: more events may match past its next position. */
  scan_limited: boolean;
  /** Events the bounded page looked at, when it stopped at the bound. */
  scanned_events?: number;
}

/** Where a page ended, in page order (created_at DESC, seq DESC). */
export interface EventPosition {
  created_at: string;
  seq: number;
}

export type EventRow = Selectable<EventsTable>;
export type EventDeliveryRow = Pick<
  Selectable<DeliveriesTable>,
  'delivery_id' | 'event_id' | 'status' | 'subscriber_id' | 'subscriber_type' | 'last_error' | 'reason_code' | 'session_id' | 'attempts' | 'redrive_of_dead_letter_id'
>;
export type EventDeadLetterRow = Omit<Selectable<DeadLettersTable>, 'event_seq' | 'event_created_at' | 'run_id'>;

export interface EventWithRecords extends EventRow {
  deliveries: EventDeliveryRow[];
  dead_letters: EventDeadLetterRow[];
}

export interface EventPage {
  events: EventWithRecords[];
  /** Set when more events match after this page (or, when scan_limited, may match). */
  next?: EventPosition;
  /** Set when the filter has payload conditions. */
  payload_search?: PayloadSearchReport;
}

/** The same page with its events' event.list records as one JSON array text (EventRepository.pageJson). */
export type EventJsonPage = Omit<EventPage, 'events'> & { events: string };

/**
 * Events an unindexed payload search looks at for one page, newest first from where the page
 * starts, unless a narrow filter (event_id, entity_id, run_id) bounds the walk already. The page
 * then ends there, possibly short, with a position to go on from: a search over a large store
 * answers in bounded time instead of scanning every payload (docs/decisions/0019-payload-search.md).
 */
export const PAYLOAD_SCAN_BOUND = 10_000;

/** The index name of a declared payload field: readable where PostgreSQL's 63-byte names allow. */
export function payloadIndexName(path: string): string {
  const readable = `events_payload_${path.replaceAll('.', '__')}`;
  return readable.length <= 63 ? readable : `events_payload_${createHash('sha256').update(path).digest('hex').slice(0, 24)}`;
}

export interface BulkEvent {
  event: Insertable<Omit<EventsTable, 'seq'>> & { seq?: number };
  deliveries: Insertable<Omit<DeliveriesTable, 'event_seq' | 'event_created_at' | 'event_id'>>[];
  dead_letters: Insertable<Omit<DeadLettersTable, 'event_seq' | 'event_created_at' | 'event_id'>>[];
}

export type PageTables = Database & { e: EventsTable; d: DeliveriesTable; l: DeadLettersTable };

/** A page's events rows, read as rows (page) or wrapped in the query that builds their records (pageJson). */
type PageQuery = SelectQueryBuilder<PageTables, 'e', EventRow>;

/** What a page read (EventRepository.pageOf) found, before its events are nested or written out. */
interface PageRead<R> {
  /** Up to the limit and one more, which says a next page exists. */
  rows: R[];
  limit: number;
  payload?: PayloadCondition[];
  indexed: boolean;
  scanBound: number;
  /** Where a bounded payload scan ended, and whether events lie past it. */
  bound?: { end: EventPosition; more: boolean };
}

/**
 * Conditions on the event row itself (alias `e`) for every filter of the event query; `skip`
 * leaves out the filter that drives an index walk. Redrive and replay select with the same
 * conditions, so their estimates count what event.list shows.
 */
export function eventConditionsOf(eb: ExpressionBuilder<PageTables, 'e'>, filter: EventFilter, skip: 'subscriber' | 'reason' | null, engine: StoreEngine): Expression<SqlBool>[] {
  const c: Expression<SqlBool>[] = [];
  for (const condition of filter.payload ?? []) c.push(engine.payloadCondition('e.payload', condition));
  if (filter.event_id !== undefined) c.push(eb('e.event_id', '=', filter.event_id));
  if (filter.entity_id !== undefined) c.push(eb('e.entity_id', '=', filter.entity_id));
  if (filter.event_name !== undefined) c.push(eb('e.event_name', '=', filter.event_name));
  if (filter.event_name_prefix !== undefined) {
    c.push(eb('e.event_name', '>=', filter.event_name_prefix));
    c.push(eb('e.event_name', '<', `${filter.event_name_prefix}\u{10FFFF}`));
  }
  if (filter.run_id !== undefined) c.push(eb('e.run_id', '=', filter.run_id));
  // Literal, not a bound parameter: the has_dead_letter = 1 partial index is only chosen for a constant.
  if (filter.has_dead_letter === true) c.push(sql<SqlBool>`${sql.ref('e.has_dead_letter')} = 1`);
  if (filter.has_dead_letter === false) c.push(sql<SqlBool>`${sql.ref('e.has_dead_letter')} = 0`);
  if (filter.dead_letter_redriven !== undefined) {
    const redriven = filter.dead_letter_redriven;
    c.push(
      eb.exists(
        eb
          .selectFrom('dead_letters as xl')
          .select(sql.lit(1).as('one'))
          .whereRef('xl.event_id', '=', 'e.event_id')
          .where('xl.redriven_at', redriven ? 'is not' : 'is', null),
      ),
    );
  }
  if (filter.subscriber_id !== undefined && skip !== 'subscriber') {
    c.push(
      eb.exists(
        eb
          .selectFrom('deliveries as sd')
          .select(sql.lit(1).as('one'))
          .whereRef('sd.event_id', '=', 'e.event_id')
          .where('sd.subscriber_id', '=', filter.subscriber_id),
      ),
    );
  }
  if (filter.reason_code !== undefined && skip !== 'reason') {
    c.push(
      eb.or([
        eb.exists(
          eb
            .selectFrom('deliveries as rd')
            .select(sql.lit(1).as('one'))
            .whereRef('rd.event_id', '=', 'e.event_id')
            .where('rd.reason_code', '=', filter.reason_code),
        ),
        eb.exists(
          eb
            .selectFrom('dead_letters as rl')
            .select(sql.lit(1).as('one'))
            .whereRef('rl.event_id', '=', 'e.event_id')
            .where('rl.reason_code', '=', filter.reason_code),
        ),
      ]),
    );
  }
  return c;
}

/** Page order keyset: strictly older than the position, written so the range start is index-usable. */
/** Page order keyset: the position itself or newer (the inclusive end of a bounded scan). */
function notOlderThan(createdAt: string, seq: string, bound: EventPosition): Expression<SqlBool> {
  const ca = sql.ref(createdAt);
  const sq = sql.ref(seq);
  return sql<SqlBool>`(${ca} >= ${bound.created_at} and (${ca} > ${bound.created_at} or ${sq} >= ${bound.seq}))`;
}

function olderThan<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  createdAt: string,
  seq: string,
  after: EventPosition,
): Expression<SqlBool> {
  const ca = sql.ref(createdAt);
  const sq = sql.ref(seq);
  return eb.and([
    sql<SqlBool>`${ca} <= ${after.created_at}`,
    sql<SqlBool>`(${ca} < ${after.created_at} or ${sq} < ${after.seq})`,
  ]);
}

/** The delivery and dead-letter columns a page nests under its events. */
const NESTED_DELIVERY_COLUMNS = ['delivery_id', 'event_id', 'status', 'subscriber_id', 'subscriber_type', 'last_error', 'reason_code', 'session_id', 'attempts', 'redrive_of_dead_letter_id'] as const;
const NESTED_DEAD_LETTER_COLUMNS = [
  'dead_letter_id',
  'event_id',
  'delivery_id',
  'subscriber_id',
  'chain_depth',
  'created_at',
  'failure_type',
  'retry_count',
  'error_message',
  'handler_node',
  'reason_code',
  'redriven_at',
  'redriven_by_token_id',
  'redrive_operation_id',
  'redrive_delivery_id',
] as const;

/**
 * A page's nested reads, each written once for both engines; `ofEvents` picks the page's rows
 * (engine.readByIds: the ids travel as one parameter, a JSON array on SQLite and an array on PostgreSQL).
 */
type OfEvents = Expression<SqlBool>;
const deliveriesOf = (db: Kysely<Database>, ofEvents: OfEvents) =>
  db.selectFrom('deliveries').select(NESTED_DELIVERY_COLUMNS).where(ofEvents).orderBy('created_at').orderBy('delivery_id');
const deadLettersOf = (db: Kysely<Database>, ofEvents: OfEvents) =>
  db.selectFrom('dead_letters').select(NESTED_DEAD_LETTER_COLUMNS).where(ofEvents).orderBy('created_at').orderBy('dead_letter_id');

/**
 * Read side of the event store: newest-first keyset pages with deliveries and dead letters nested
 * (one query each per page), plus a bulk insert for fixtures and benchmarks.
 */
export class EventRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
    private readonly engine: StoreEngine,
  ) {}

  /** Payload paths with an index (declared fields, see ensurePayloadIndexes). */
  private readonly indexedPayloadPaths = new Set<string>();

  /**
   * Creates the index of each declared payload path that has none (at boot; idempotent) and lets
   * searches on them say they are indexed. The paths it created an index for.
   */
  async ensurePayloadIndexes(paths: Iterable<string>): Promise<string[]> {
    const created: string[] = [];
    for (const path of new Set(paths)) {
      if (await this.engine.ensurePayloadIndex(this.db, payloadIndexName(path), path)) created.push(path);
      this.indexedPayloadPaths.add(path);
    }
    return created;
  }

  /** The payload paths with an index, as ensurePayloadIndexes left them (what a reader thread's store is told). */
  payloadIndexPaths(): string[] {
    return [...this.indexedPayloadPaths];
  }

  /**
   * Lets a read-only store (a reader thread's) serve searches on the paths the store that owns the
   * file indexed, as that store does: from the index, not a bounded scan.
   */
  knowPayloadIndexes(paths: Iterable<string>): void {
    for (const path of paths) this.indexedPayloadPaths.add(path);
  }

  /** Whether an index serves the filter's payload conditions: an eq or in on an indexed path. */
  payloadSearchIndexed(conditions: readonly PayloadCondition[]): boolean {
    return conditions.some((c) => (c.op === 'eq' || c.op === 'in') && this.indexedPayloadPaths.has(c.path));
  }

  async page(filter: EventFilter, options: { limit: number; after?: EventPosition; scanBound?: number }): Promise<EventPage> {
    const read = await this.pageOf(filter, options, (query) => query.execute());
    return this.ended(read, await this.nest(read.rows.slice(0, read.limit)));
  }

  /** Whether pageJson answers on this engine (engine.eventRecordJson). */
  get recordsAsJson(): boolean {
    return this.engine.eventRecordJson !== undefined;
  }

  /**
   * The same page as page(), its events as the JSON text of their event.list records (the
   * contract's StoredEvent) written by the database (engine.eventRecordJson), with no row object per
   * event, delivery and dead letter. Only where recordsAsJson.
   */
  async pageJson(filter: EventFilter, options: { limit: number; after?: EventPosition; scanBound?: number }): Promise<EventJsonPage> {
    const record = this.engine.eventRecordJson;
    if (record === undefined) throw new Error(`the ${this.engine.name} store writes no event records as JSON; read page() instead`);
    const read = await this.pageOf(filter, options, (query) =>
      (this.db as unknown as Kysely<PageTables>)
        .selectFrom(query.as('e'))
        .select([sql<string>`${sql.raw(record)}`.as('record'), 'e.created_at', 'e.seq'])
        .orderBy('e.created_at', 'desc')
        .orderBy('e.seq', 'desc')
        .execute(),
    );
    let events = '[';
    for (let i = 0; i < Math.min(read.limit, read.rows.length); i++) events += (i === 0 ? '' : ',') + read.rows[i]!.record;
    return this.ended(read, events + ']');
  }

  /** The page's rows, as `read` reads its query. */
  private async pageOf<R extends { created_at: string; seq: number }>(
    filter: EventFilter,
    options: { limit: number; after?: EventPosition; scanBound?: number },
    read: (query: PageQuery) => Promise<R[]>,
  ): Promise<PageRead<R>> {
    const { limit, after } = options;
    const payload = filter.payload !== undefined && filter.payload.length > 0 ? filter.payload : undefined;
    const indexed = payload !== undefined && this.payloadSearchIndexed(payload);
    const narrow = filter.event_id !== undefined || filter.entity_id !== undefined || filter.run_id !== undefined;
    const scanBound = options.scanBound ?? PAYLOAD_SCAN_BOUND;
    const bound = payload !== undefined && !indexed && !narrow ? await this.scanEnd(filter, after, scanBound) : undefined;
    const rows = await read(this.pageQuery(filter, limit + 1, after, bound?.end));
    return { rows, limit, indexed, scanBound, ...(payload ? { payload } : {}), ...(bound ? { bound } : {}) };
  }

  /** The page of `events` that `read` found: where the next page starts, and how a payload search went. */
  private ended<E>(read: PageRead<{ created_at: string; seq: number }>, events: E): Omit<EventPage, 'events'> & { events: E } {
    const { rows, limit, payload, indexed, scanBound, bound } = read;
    const last = rows[Math.min(limit, rows.length) - 1];
    const report = (scanLimited: boolean): { payload_search?: PayloadSearchReport } =>
      payload === undefined ? {} : { payload_search: { indexed, scan_limited: scanLimited, ...(scanLimited ? { scanned_events: scanBound } : {}) } };
    if (rows.length > limit && last) return { events, next: { created_at: last.created_at, seq: Number(last.seq) }, ...report(false) };
    // The bounded scan found less than a page: the next page goes on past the last event it looked at.
    if (bound?.more) return { events, next: bound.end, ...report(true) };
    return { events, ...report(false) };
  }

  /**
   * Where a bounded scan ends: the position of the `scanBound`-th newest event of the time window
   * after `after` (a walk of the (created_at, seq) index), and whether any event lies past it;
   * undefined when fewer remain.
   */
  private async scanEnd(filter: EventFilter, after: EventPosition | undefined, scanBound: number): Promise<{ end: EventPosition; more: boolean } | undefined> {
    const db = this.db as unknown as Kysely<PageTables>;
    const rows = await db
      .selectFrom('events as e')
      .select(['e.created_at', 'e.seq'])
      .where((eb) => {
        const c: Expression<SqlBool>[] = [];
        if (filter.since !== undefined) c.push(sql<SqlBool>`${sql.ref('e.created_at')} >= ${filter.since}`);
        if (filter.until !== undefined) c.push(sql<SqlBool>`${sql.ref('e.created_at')} < ${filter.until}`);
        if (after) c.push(olderThan(eb, 'e.created_at', 'e.seq', after));
        return eb.and(c);
      })
      .orderBy('e.created_at', 'desc')
      .orderBy('e.seq', 'desc')
      .limit(2)
      .offset(scanBound - 1)
      .execute();
    const row = rows[0];
    return row ? { end: { created_at: row.created_at, seq: Number(row.seq) }, more: rows.length > 1 } : undefined;
  }

  /**
   * The page's events, walking the most selective ordered index: reason-code and subscriber filters
   * walk the denormalised (…, event_created_at, event_seq) indexes of deliveries and dead letters in
   * page order and join events by seq; otherwise the planner picks one of the events indexes, all of
   * which end in (created_at, seq). Either way a page is a bounded range walk, at any depth.
   */
  private pageQuery(filter: EventFilter, take: number, after: EventPosition | undefined, scanEnd: EventPosition | undefined): PageQuery {
    const db = this.db as unknown as Kysely<PageTables>;

    const eventConditions = (eb: ExpressionBuilder<PageTables, 'e'>, skip: 'subscriber' | 'reason' | null) => eventConditionsOf(eb, filter, skip, this.engine);

    /** Time bounds and the keyset, on whichever (created_at, seq) pair the walk is ordered by. */
    const positionConditions = <TB extends keyof PageTables>(eb: ExpressionBuilder<PageTables, TB>, createdAt: string, seq: string) => {
      const c: Expression<SqlBool>[] = [];
      if (filter.since !== undefined) c.push(sql<SqlBool>`${sql.ref(createdAt)} >= ${filter.since}`);
      if (filter.until !== undefined) c.push(sql<SqlBool>`${sql.ref(createdAt)} < ${filter.until}`);
      if (after) c.push(olderThan(eb, createdAt, seq, after));
      if (scanEnd) c.push(notOlderThan(createdAt, seq, scanEnd));
      return c;
    };

    const hasEventConditions = (skip: 'subscriber' | 'reason') =>
      filter.event_id !== undefined ||
      filter.entity_id !== undefined ||
      filter.event_name !== undefined ||
      filter.event_name_prefix !== undefined ||
      filter.run_id !== undefined ||
      filter.has_dead_letter !== undefined ||
      filter.dead_letter_redriven !== undefined ||
      (filter.payload !== undefined && filter.payload.length > 0) ||
      (skip === 'reason' && filter.subscriber_id !== undefined);

    if (filter.event_id === undefined && filter.reason_code !== undefined) {
      const code = filter.reason_code;
      const joinEvents = hasEventConditions('reason');
      const fromDeliveries = joinEvents
        ? db
            .selectFrom('deliveries as d')
            .innerJoin('events as e', 'e.seq', 'd.event_seq')
            .select(['d.event_created_at as ca', 'd.event_seq as sq'])
            .where((eb) => eb.and([eb('d.reason_code', '=', code), ...positionConditions(eb, 'd.event_created_at', 'd.event_seq'), ...eventConditions(eb as never, 'reason')]))
        : db
            .selectFrom('deliveries as d')
            .select(['d.event_created_at as ca', 'd.event_seq as sq'])
            .where((eb) => eb.and([eb('d.reason_code', '=', code), ...positionConditions(eb, 'd.event_created_at', 'd.event_seq')]));
      const fromDeadLetters = joinEvents
        ? db
            .selectFrom('dead_letters as l')
            .innerJoin('events as e', 'e.seq', 'l.event_seq')
            .select(['l.event_created_at as ca', 'l.event_seq as sq'])
            .where((eb) => eb.and([eb('l.reason_code', '=', code), ...positionConditions(eb, 'l.event_created_at', 'l.event_seq'), ...eventConditions(eb as never, 'reason')]))
        : db
            .selectFrom('dead_letters as l')
            .select(['l.event_created_at as ca', 'l.event_seq as sq'])
            .where((eb) => eb.and([eb('l.reason_code', '=', code), ...positionConditions(eb, 'l.event_created_at', 'l.event_seq')]));
      // UNION (not ALL) merges the two ordered index walks and drops an event matched twice.
      const keys = fromDeliveries.union(fromDeadLetters).orderBy('ca', 'desc').orderBy('sq', 'desc').limit(take);
      return db
        .selectFrom(keys.as('k'))
        .innerJoin('events as e', 'e.seq', 'k.sq')
        .selectAll('e')
        .orderBy('e.created_at', 'desc')
        .orderBy('e.seq', 'desc') as unknown as PageQuery;
    }

    if (filter.event_id === undefined && filter.subscriber_id !== undefined) {
      const subscriber = filter.subscriber_id;
      // The runtime writes one delivery per (event, catalog subscriber); a redrive adds more for the
      // same pair, so walking only the first ones yields each event once.
      return db
        .selectFrom('deliveries as d')
        .innerJoin('events as e', 'e.seq', 'd.event_seq')
        .selectAll('e')
        .where((eb) =>
          eb.and([
            eb('d.subscriber_id', '=', subscriber),
            eb('d.redrive_of_dead_letter_id', 'is', null),
            ...positionConditions(eb, 'd.event_created_at', 'd.event_seq'),
            ...eventConditions(eb as never, 'subscriber'),
          ]),
        )
        .orderBy('d.event_created_at', 'desc')
        .orderBy('d.event_seq', 'desc')
        .limit(take) as unknown as PageQuery;
    }

    return db
      .selectFrom('events as e')
      .selectAll('e')
      .where((eb) => eb.and([...eventConditions(eb, null), ...positionConditions(eb, 'e.created_at', 'e.seq')]))
      .orderBy('e.created_at', 'desc')
      .orderBy('e.seq', 'desc')
      .limit(take) as unknown as PageQuery;
  }

  /**
   * Deliveries and dead letters of a page: one query each, whatever the page size. Dead letters
   * are read only for the page's events flagged has_dead_letter (set in the dead letter's own
   * transaction, and both go together in a reset): most pages have none, and on PostgreSQL their
   * read was a large share of a page's execution time (an index probe per event, to find nothing;
   * docs/performance-notes.md) and a statement more on the wire.
   */
  private async nest(rows: EventRow[]): Promise<EventWithRecords[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.event_id);
    const deadIds = rows.filter((r) => r.has_dead_letter === 1).map((r) => r.event_id);
    const [deliveries, deadLetters] = await Promise.all([
      this.engine.readByIds(this.db, deliveriesOf, 'event_id', ids),
      deadIds.length === 0 ? [] : this.engine.readByIds(this.db, deadLettersOf, 'event_id', deadIds),
    ]);
    // The rows are this call's own: giving each its two lists in place is much cheaper than
    // copying every row with a spread.
    const events = rows as EventWithRecords[];
    const byId = new Map<string, EventWithRecords>();
    for (const e of events) {
      e.deliveries = [];
      e.dead_letters = [];
      byId.set(e.event_id, e);
    }
    for (const d of deliveries) byId.get(d.event_id)?.deliveries.push(d);
    for (const l of deadLetters) byId.get(l.event_id)?.dead_letters.push(l);
    return events;
  }

  /**
   * Inserts events with their deliveries and dead letters as they are, in one transaction: for
   * fixtures, imports and benchmarks. The runtime writes through its own event path instead.
   * Denormalised columns (event_seq, event_created_at, has_dead_letter) are derived here. Rows go
   * in as multi-row statements, kept under SQLite's bound-parameter limit.
   */
  async bulkInsert(batch: BulkEvent[]): Promise<void> {
    if (batch.length === 0) return;
    await this.changes.transaction(async (trx) => {
      markChange(storeTxOf(trx), 'events');
      const seqById = new Map<string, number>();
      for (const chunk of chunks(batch, 400)) {
        const inserted = await trx
          .insertInto('events')
          .values(chunk.map(({ event, dead_letters }) => ({ ...event, has_dead_letter: dead_letters.length > 0 || event.has_dead_letter ? 1 : 0 })))
          .returning(['seq', 'event_id'])
          .execute();
        for (const r of inserted) seqById.set(r.event_id, Number(r.seq));
      }
      const denorm = (ev: BulkEvent['event']) => ({ event_id: ev.event_id, event_seq: seqById.get(ev.event_id)!, event_created_at: ev.created_at });
      const deliveries = batch.flatMap(({ event, deliveries }) => deliveries.map((d) => ({ ...d, ...denorm(event) })));
      for (const chunk of chunks(deliveries, 500)) await trx.insertInto('deliveries').values(chunk).execute();
      const deadLetters = batch.flatMap(({ event, dead_letters }) => dead_letters.map((l) => ({ ...l, ...denorm(event) })));
      for (const chunk of chunks(deadLetters, 500)) await trx.insertInto('dead_letters').values(chunk).execute();
    });
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
