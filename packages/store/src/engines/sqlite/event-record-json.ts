/**
 * An event.list record (the contract's StoredEvent) written as JSON text by SQLite from an events
 * row aliased `e`, its deliveries and its dead letters, so that a page comes back as one text per
 * event instead of a row object per event, delivery and dead letter that JavaScript maps and
 * serializes again (docs/decisions/0021-event-records-as-json.md).
 *
 * It is the record apps/server's records/stored-event.ts maps from the rows (PostgreSQL's pages,
 * exports); apps/server/test/records/event-record-json.test.ts holds the two to the same text. The
 * text is concatenated, each value through json_quote: SQLite's JSON builders (json_object,
 * json_patch) parse their arguments again, and cost more than the rows they replace.
 */

/**
 * `,"key":value` when `value` is not null (the mapping's omitAbsent), else nothing. json_quote
 * writes SQL NULL as the bare text null (a text 'null' is quoted), and `value` is evaluated once.
 */
const member = (key: string, value: string) => `coalesce(',"${key}":' || nullif(json_quote(${value}), 'null'), '')`;
/** `"key":value`, the first member of an object, for a value never null. */
const first = (key: string, value: string) => `'"${key}":' || json_quote(${value})`;

/** The 32 hex digits of a W3C traceparent's trace id (its second dash-separated part) when valid: runtime's traceIdOf. */
const TRACE_ID_PART = `substr(substr(e.traceparent, instr(e.traceparent, '-') + 1), 1, instr(substr(e.traceparent, instr(e.traceparent, '-') + 1) || '-', '-') - 1)`;
const TRACE_ID = `case when instr(e.traceparent, '-') > 0 and length(${TRACE_ID_PART}) = 32 and ${TRACE_ID_PART} not glob '*[^0-9a-f]*' and ${TRACE_ID_PART} <> '00000000000000000000000000000000' then ${TRACE_ID_PART} end`;

/**
 * The payload as stored when it is a JSON object (the store writes JSON.stringify's text, which is
 * what parsing and serializing it again gives), else {"value": payload}: parseJsonObject.
 */
const PAYLOAD = `case when e.payload is null then '{}' when json_type(e.payload) = 'object' then e.payload else json_object('value', json(e.payload)) end`;

const DELIVERY = `'{' || ${first('delivery_id', 'd.delivery_id')} || ',"status":' || json_quote(d.status) || ',"subscriber_id":' || json_quote(d.subscriber_id)
  || ',"subscriber_type":' || json_quote(d.subscriber_type) || ${member('last_error', 'd.last_error')} || ${member('reason_code', 'd.reason_code')}
  || ${member('session_id', 'd.session_id')} || ${member('attempts', 'd.attempts')} || ${member('redrive_of_dead_letter_id', 'd.redrive_of_dead_letter_id')} || '}'`;

/** A redrive is shown once all three of its references are set (non-empty). */
const REDRIVE = `case when coalesce(l.redriven_at, '') <> '' and coalesce(l.redrive_operation_id, '') <> '' and coalesce(l.redrive_delivery_id, '') <> ''
  then ',"redrive":{"redriven_at":' || json_quote(l.redriven_at) || ',"actor_token_id":' || json_quote(coalesce(l.redriven_by_token_id, 'unknown'))
    || ',"operation_id":' || json_quote(l.redrive_operation_id) || ',"delivery_id":' || json_quote(l.redrive_delivery_id) || '}' else '' end`;

/** A dead letter of a redrive delivery names the dead letter that delivery sent again. */
const REDRIVE_OF = `case when coalesce(l.delivery_id, '') <> '' then (select nullif(r.redrive_of_dead_letter_id, '') from deliveries as r where r.delivery_id = l.delivery_id and r.event_id = l.event_id) end`;

const DEAD_LETTER = `'{' || ${first('dead_letter_id', 'l.dead_letter_id')} || ${member('chain_depth', 'l.chain_depth')} || ${member('created_at', 'l.created_at')}
  || ${member('failure_type', 'l.failure_type')} || ${member('retry_count', 'l.retry_count')} || ${member('error_message', 'l.error_message')}
  || ${member('handler_node', 'l.handler_node')} || ${member('delivery_id', 'l.delivery_id')} || ${member('subscriber_id', 'l.subscriber_id')}
  || ${member('reason_code', 'l.reason_code')} || ${REDRIVE} || ${member('redrive_of_dead_letter_id', REDRIVE_OF)} || '}'`;

/**
 * The record's text. Dead letters are read only for events flagged has_dead_letter, as the row
 * read does (EventRepository.nest); each list keeps the row read's order.
 */
export const SQLITE_EVENT_RECORD_JSON = `'{' || ${first('event_id', 'e.event_id')} || ',"event_name":' || json_quote(e.event_name) || ',"created_at":' || json_quote(e.created_at)
  || ',"source":' || json_quote(e.source) || ',"payload":' || ${PAYLOAD} || ${member('entity_id', 'e.entity_id')} || ${member('run_id', 'e.run_id')}
  || ${member('chain_depth', 'e.chain_depth')} || ${member('parent_event_id', 'e.parent_event_id')} || ${member('replay_of_event_id', 'e.replay_of_event_id')}
  || ${member('trace_id', TRACE_ID)}
  || ',"deliveries":[' || coalesce((select group_concat(${DELIVERY}, ',' order by d.created_at, d.delivery_id) from deliveries as d where d.event_id = e.event_id), '') || ']'
  || ',"dead_letters":[' || case when e.has_dead_letter = 1
    then coalesce((select group_concat(${DEAD_LETTER}, ',' order by l.created_at, l.dead_letter_id) from dead_letters as l where l.event_id = e.event_id), '') else '' end
  || ']}'`;
