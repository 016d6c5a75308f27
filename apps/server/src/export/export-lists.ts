/**
 * The lists an export takes out. Each walks its list method's own handler page by page, with the
 * list's own keyset cursors, so an export holds exactly what the list shows for the same params:
 * filters, order and membership are the list's by construction, never re-implemented here.
 *
 * A row is what the list returns for one item (JSON Lines writes it as is); `columns` flatten it
 * for CSV, nested parts (payloads, deliveries, histories) as JSON text in one cell.
 */
import { EXPORT_LIST_METHODS, EXPORT_LIST_NAMES, type DecisionSheet, type ExportListName, type MethodName, type Params, type Result, type StoredEvent } from '@switchboard/contract';
import { auditList } from '../methods/audit/list';
import { readEventList } from '../methods/event/list';
import { mailboxList } from '../methods/mailbox/list';
import { runtimeIncidents } from '../methods/runtime/incidents';
import { toMailboxHistoryEntry } from '../records/mailbox-item';
import { parseJsonObject } from '../records/omit-absent';
import type { HandlerContext } from '../rpc/handler';

/** Rows per page read: one page is all an export holds in memory at a time. */
export const EXPORT_PAGE_SIZE = 500;


export interface ExportPage<Row> {
  rows: Row[];
  /** The list method's own next_cursor: absent on the last page. */
  next_cursor?: string;
}

export interface CsvColumn<Row> {
  name: string;
  cell: (row: Row) => unknown;
}

export interface ExportList<Row = object> {
  name: ExportListName;
  /** The list method whose params (minus limit and cursor), scope and pages the export shares. */
  method: MethodName;
  /** One page of rows for already validated params, after `cursor` (the first page without). */
  page(params: Record<string, unknown>, cursor: string | undefined, ctx: HandlerContext): Promise<ExportPage<Row>>;
  columns: readonly CsvColumn<Row>[];
}

function exportList<Row>(list: ExportList<Row>): ExportList {
  return list as unknown as ExportList;
}

/** The list params of a page: the export's params with the export's page size and the cursor. */
function paged<M extends MethodName>(params: Record<string, unknown>, cursor: string | undefined): Params<M> {
  return { ...params, limit: EXPORT_PAGE_SIZE, ...(cursor ? { cursor } : {}) } as Params<M>;
}

const eventColumns: CsvColumn<StoredEvent>[] = [
  { name: 'event_id', cell: (e) => e.event_id },
  { name: 'event_name', cell: (e) => e.event_name },
  { name: 'created_at', cell: (e) => e.created_at },
  { name: 'source', cell: (e) => e.source },
  { name: 'entity_id', cell: (e) => e.entity_id },
  { name: 'run_id', cell: (e) => e.run_id },
  { name: 'chain_depth', cell: (e) => e.chain_depth },
  { name: 'parent_event_id', cell: (e) => e.parent_event_id },
  { name: 'replay_of_event_id', cell: (e) => e.replay_of_event_id },
  { name: 'trace_id', cell: (e) => e.trace_id },
  { name: 'delivery_count', cell: (e) => e.deliveries.length },
  { name: 'dead_letter_count', cell: (e) => e.dead_letters.length },
  { name: 'payload', cell: (e) => e.payload },
  { name: 'deliveries', cell: (e) => e.deliveries },
  { name: 'dead_letters', cell: (e) => e.dead_letters },
];

const events = exportList<StoredEvent>({
  name: 'events',
  method: EXPORT_LIST_METHODS.events,
  async page(params, cursor, ctx) {
    const page = await readEventList(ctx.store, paged<'event.list'>(params, cursor));
    return { rows: page.events, next_cursor: page.next_cursor };
  },
  columns: eventColumns,
});

type DeadLetter = StoredEvent['dead_letters'][number];
/** A dead letter with the event it belongs to, one row per dead letter. */
interface DeadLetterRow extends DeadLetter {
  event: Pick<StoredEvent, 'event_id' | 'event_name' | 'created_at' | 'entity_id' | 'run_id'>;
}

/**
 * What the Dead letters screen lists: event.list with has_dead_letter, one row per dead letter.
 * subscriber_id, reason_code and dead_letter_redriven apply to the dead letter itself, as
 * event.redrive selects them, so an event's other dead letters do not come along.
 */
function deadLettersOf(event: StoredEvent, filter: Params<'event.list'>['filter']): DeadLetterRow[] {
  const { event_id, event_name, created_at, entity_id, run_id } = event;
  const summary = { event_id, event_name, created_at, ...(entity_id ? { entity_id } : {}), ...(run_id ? { run_id } : {}) };
  return event.dead_letters
    .filter(
      (l) =>
        (filter?.subscriber_id === undefined || l.subscriber_id === filter.subscriber_id) &&
        (filter?.reason_code === undefined || l.reason_code === filter.reason_code) &&
        (filter?.dead_letter_redriven === undefined || (l.redrive !== undefined) === filter.dead_letter_redriven),
    )
    .map((l) => ({ ...l, event: summary }));
}

const deadLetters = exportList<DeadLetterRow>({
  name: 'dead-letters',
  method: EXPORT_LIST_METHODS['dead-letters'],
  async page(params, cursor, ctx) {
    const list = params as Params<'event.list'>;
    const filter = { ...list.filter, has_dead_letter: true };
    const page = await readEventList(ctx.store, paged<'event.list'>({ ...params, filter }, cursor));
    return { rows: page.events.flatMap((e) => deadLettersOf(e, filter)), next_cursor: page.next_cursor };
  },
  columns: [
    { name: 'dead_letter_id', cell: (l) => l.dead_letter_id },
    { name: 'created_at', cell: (l) => l.created_at },
    { name: 'failure_type', cell: (l) => l.failure_type },
    { name: 'reason_code', cell: (l) => l.reason_code },
    { name: 'subscriber_id', cell: (l) => l.subscriber_id },
    { name: 'handler_node', cell: (l) => l.handler_node },
    { name: 'delivery_id', cell: (l) => l.delivery_id },
    { name: 'retry_count', cell: (l) => l.retry_count },
    { name: 'chain_depth', cell: (l) => l.chain_depth },
    { name: 'error_message', cell: (l) => l.error_message },
    { name: 'redriven_at', cell: (l) => l.redrive?.redriven_at },
    { name: 'redrive_operation_id', cell: (l) => l.redrive?.operation_id },
    { name: 'redrive_delivery_id', cell: (l) => l.redrive?.delivery_id },
    { name: 'redrive_actor_token_id', cell: (l) => l.redrive?.actor_token_id },
    { name: 'redrive_of_dead_letter_id', cell: (l) => l.redrive_of_dead_letter_id },
    { name: 'event_id', cell: (l) => l.event.event_id },
    { name: 'event_name', cell: (l) => l.event.event_name },
    { name: 'event_created_at', cell: (l) => l.event.created_at },
    { name: 'entity_id', cell: (l) => l.event.entity_id },
    { name: 'run_id', cell: (l) => l.event.run_id },
  ],
});

type MailboxItem = Result<'mailbox.list'>['items'][number];
type MailboxHistoryEntry = Result<'mailbox.get'>['history'][number];
/** A mailbox item with what its decision left: the sheet and payload as decided, and its history. */
interface MailboxRow extends MailboxItem {
  decided_sheet?: DecisionSheet;
  emitted_payload?: Record<string, unknown>;
  emitted_event_id?: string;
  history: MailboxHistoryEntry[];
}

function lastDecision(row: MailboxRow): MailboxHistoryEntry | undefined {
  return row.history.findLast((h) => h.action !== 'created');
}

const mailbox = exportList<MailboxRow>({
  name: 'mailbox',
  method: EXPORT_LIST_METHODS.mailbox,
  async page(params, cursor, ctx) {
    const page = await mailboxList(paged<'mailbox.list'>(params, cursor), ctx);
    const records = await ctx.store.mailboxReads.decisionRecordsOf(page.items.map((i) => i.mailbox_id));
    const rows = page.items.map((item): MailboxRow => {
      const found = records.get(item.mailbox_id);
      const emitted = parseJsonObject(found?.emitted_payload ?? null);
      return {
        ...item,
        ...(found?.decided_sheet ? { decided_sheet: JSON.parse(found.decided_sheet) as DecisionSheet } : {}),
        ...(emitted ? { emitted_payload: emitted } : {}),
        ...(found?.emitted_event_id ? { emitted_event_id: found.emitted_event_id } : {}),
        history: (found?.history ?? []).map(toMailboxHistoryEntry),
      };
    });
    return { rows, next_cursor: page.next_cursor };
  },
  columns: [
    { name: 'mailbox_id', cell: (m) => m.mailbox_id },
    { name: 'created_at', cell: (m) => m.created_at },
    { name: 'type', cell: (m) => m.type },
    { name: 'source_flow', cell: (m) => m.source_flow },
    { name: 'priority', cell: (m) => m.priority },
    { name: 'status', cell: (m) => m.status },
    { name: 'decision', cell: (m) => m.decision },
    { name: 'decided_at', cell: (m) => m.decided_at },
    { name: 'decided_by_token_id', cell: (m) => lastDecision(m)?.actor_token_id },
    { name: 'decided_by_token_name', cell: (m) => lastDecision(m)?.actor_token_name },
    { name: 'reason_code', cell: (m) => m.reason_code },
    { name: 'reason', cell: (m) => lastDecision(m)?.reason },
    { name: 'source_entity_id', cell: (m) => m.source_entity_id },
    { name: 'source_event_id', cell: (m) => m.source_event_id },
    { name: 'emitted_event_id', cell: (m) => m.emitted_event_id },
    { name: 'payload', cell: (m) => m.payload },
    { name: 'decided_sheet', cell: (m) => m.decided_sheet },
    { name: 'emitted_payload', cell: (m) => m.emitted_payload },
    { name: 'history', cell: (m) => m.history },
  ],
});

type Incident = Result<'runtime.incidents'>['incidents'][number];

const incidents = exportList<Incident>({
  name: 'incidents',
  method: EXPORT_LIST_METHODS.incidents,
  async page(params, cursor, ctx) {
    const page = await runtimeIncidents(paged<'runtime.incidents'>(params, cursor), ctx);
    return { rows: page.incidents, next_cursor: page.next_cursor };
  },
  columns: [
    { name: 'incident_id', cell: (i) => i.incident_id },
    { name: 'component', cell: (i) => i.component },
    { name: 'error_code', cell: (i) => i.error_code },
    { name: 'subscriber_id', cell: (i) => i.subscriber_id },
    { name: 'reason_code', cell: (i) => i.reason_code },
    { name: 'tool_server', cell: (i) => i.tool_server },
    { name: 'level', cell: (i) => i.level },
    { name: 'state', cell: (i) => i.state },
    { name: 'regressed', cell: (i) => i.regressed },
    { name: 'count', cell: (i) => i.count },
    { name: 'first_seen', cell: (i) => i.first_seen },
    { name: 'last_seen', cell: (i) => i.last_seen },
    { name: 'trend', cell: (i) => i.trend },
    { name: 'sample_message', cell: (i) => i.sample_message },
    { name: 'state_changed_at', cell: (i) => i.state_changed_at },
    { name: 'state_changed_by', cell: (i) => i.state_changed_by },
    { name: 'ignore_until', cell: (i) => i.ignore_until },
    { name: 'ignore_remaining', cell: (i) => i.ignore_remaining },
    { name: 'sample_log_ids', cell: (i) => i.sample_log_ids },
    { name: 'histogram', cell: (i) => i.histogram },
  ],
});

type AuditRecord = Result<'audit.list'>['items'][number];

const audit = exportList<AuditRecord>({
  name: 'audit',
  method: EXPORT_LIST_METHODS.audit,
  async page(params, cursor, ctx) {
    const page = await auditList(paged<'audit.list'>(params, cursor), ctx);
    return { rows: page.items, next_cursor: page.next_cursor };
  },
  columns: [
    { name: 'seq', cell: (r) => r.seq },
    { name: 'at', cell: (r) => r.at },
    { name: 'user_id', cell: (r) => r.user_id },
    { name: 'user_name', cell: (r) => r.user_name },
    { name: 'token_id', cell: (r) => r.token_id },
    { name: 'channel', cell: (r) => r.channel },
    { name: 'server_id', cell: (r) => r.server_id },
    { name: 'method', cell: (r) => r.method },
    { name: 'outcome', cell: (r) => r.outcome },
    { name: 'correlation_id', cell: (r) => r.correlation_id },
    { name: 'target_ids', cell: (r) => r.target_ids },
    { name: 'params_summary', cell: (r) => r.params_summary },
    { name: 'hash', cell: (r) => r.hash },
    { name: 'prev_hash', cell: (r) => r.prev_hash },
  ],
});

export const exportLists: Record<ExportListName, ExportList> = {
  events,
  'dead-letters': deadLetters,
  mailbox,
  incidents,
  audit,
};

export function isExportListName(name: string): name is ExportListName {
  return (EXPORT_LIST_NAMES as readonly string[]).includes(name);
}
