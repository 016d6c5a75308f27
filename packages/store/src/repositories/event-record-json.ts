/**
 * An event.list record (the contract's StoredEvent) written as JSON text by the database from an
 * events row aliased `e`, its deliveries and its dead letters, so that a page comes back as one
 * text per event instead of a row object per event, delivery and dead letter that JavaScript maps
 * and serializes again (docs/decisions/0021-event-records-as-json.md). The record is written here
 * once; an engine that writes it supplies the few functions whose names are its own
 * (RecordJsonDialect). SQLite does; PostgreSQL reads pages as rows, whose mapping cost it less.
 *
 * It is the record apps/server's records/stored-event.ts maps from rows;
 * apps/server/test/records/event-record-json.test.ts holds the two to the same text. The text is
 * concatenated, each value quoted as JSON: SQLite's JSON builders (json_object, json_patch) parse
 * their arguments again, and cost more than the rows they replace.
 */

/** The SQL an engine gives for what the record's text needs. */
export interface RecordJsonDialect {
  /** `value` as JSON text (a string quoted and escaped as JSON.stringify does), SQL NULL when it is null. */
  quote(value: string): string;
  /** The texts of a subquery's rows joined with commas in `orderBy`'s order; SQL NULL over no rows. */
  joined(text: string, orderBy: string): string;
  /** The second dash-separated part of e.traceparent; '' or SQL NULL when it has none. */
  readonly traceIdPart: string;
  /** Whether `part` is exactly 32 lowercase hex digits. */
  isLowerHex32(part: string): string;
  /** Whether e.payload's text is a JSON object. */
  readonly payloadIsObject: string;
}

/** The record's text for an events row aliased `e`. */
export function eventRecordJson(d: RecordJsonDialect): string {
  /**
   * `,"key":value` when `value` is not null (the mapping's omitAbsent), else nothing; also for the
   * columns declared not null, so that no value can make a whole record null.
   */
  const member = (key: string, value: string) => `coalesce(',"${key}":' || ${d.quote(value)}, '')`;
  /** `"key":value` for a record's first member, its key (never null). */
  const first = (key: string, value: string) => `'"${key}":' || ${d.quote(value)}`;

  // runtime's traceIdOf: the second part when it is 32 lowercase hex digits, not all zeros.
  const traceId = `case when ${d.isLowerHex32(d.traceIdPart)} and ${d.traceIdPart} <> '00000000000000000000000000000000' then ${d.traceIdPart} end`;

  // parseJsonObject: the payload as stored when it is a JSON object (the runtime stores
  // JSON.stringify's text, which is what parsing and serializing it again gives), else {"value": payload}.
  const payload = `case when e.payload is null then '{}' when ${d.payloadIsObject} then e.payload else '{"value":' || e.payload || '}' end`;

  const delivery = `'{' || ${first('delivery_id', 'd.delivery_id')} || ${member('status', 'd.status')} || ${member('subscriber_id', 'd.subscriber_id')}
    || ${member('subscriber_type', 'd.subscriber_type')} || ${member('last_error', 'd.last_error')} || ${member('reason_code', 'd.reason_code')}
    || ${member('session_id', 'd.session_id')} || ${member('attempts', 'd.attempts')} || ${member('redrive_of_dead_letter_id', 'd.redrive_of_dead_letter_id')} || '}'`;

  // toDeadLetter: a redrive is shown once all three of its references are set (non-empty).
  const redrive = `case when coalesce(l.redriven_at, '') <> '' and coalesce(l.redrive_operation_id, '') <> '' and coalesce(l.redrive_delivery_id, '') <> ''
    then ',"redrive":{"redriven_at":' || ${d.quote('l.redriven_at')} || ',"actor_token_id":' || ${d.quote(`coalesce(l.redriven_by_token_id, 'unknown')`)}
      || ',"operation_id":' || ${d.quote('l.redrive_operation_id')} || ',"delivery_id":' || ${d.quote('l.redrive_delivery_id')} || '}' else '' end`;

  // toStoredEvent: a dead letter of a redrive delivery names the dead letter that delivery sent again.
  // (A dead letter without a delivery finds none.)
  const redriveOf = `(select nullif(r.redrive_of_dead_letter_id, '') from deliveries as r where r.delivery_id = l.delivery_id and r.event_id = l.event_id)`;

  const deadLetter = `'{' || ${first('dead_letter_id', 'l.dead_letter_id')} || ${member('chain_depth', 'l.chain_depth')} || ${member('created_at', 'l.created_at')}
    || ${member('failure_type', 'l.failure_type')} || ${member('retry_count', 'l.retry_count')} || ${member('error_message', 'l.error_message')}
    || ${member('handler_node', 'l.handler_node')} || ${member('delivery_id', 'l.delivery_id')} || ${member('subscriber_id', 'l.subscriber_id')}
    || ${member('reason_code', 'l.reason_code')} || ${redrive} || ${member('redrive_of_dead_letter_id', redriveOf)} || '}'`;

  // Dead letters are read only for events flagged has_dead_letter, as the row read does
  // (EventRepository.nest); each list keeps the row read's order.
  return `'{' || ${first('event_id', 'e.event_id')} || ${member('event_name', 'e.event_name')} || ${member('created_at', 'e.created_at')}
    || ${member('source', 'e.source')} || ',"payload":' || ${payload} || ${member('entity_id', 'e.entity_id')} || ${member('run_id', 'e.run_id')}
    || ${member('chain_depth', 'e.chain_depth')} || ${member('parent_event_id', 'e.parent_event_id')} || ${member('replay_of_event_id', 'e.replay_of_event_id')}
    || ${member('trace_id', traceId)}
    || ',"deliveries":[' || coalesce((select ${d.joined(delivery, 'd.created_at, d.delivery_id')} from deliveries as d where d.event_id = e.event_id), '') || ']'
    || ',"dead_letters":[' || case when e.has_dead_letter = 1
      then coalesce((select ${d.joined(deadLetter, 'l.created_at, l.dead_letter_id')} from dead_letters as l where l.event_id = e.event_id), '') else '' end
    || ']}'`;
}
