import type { DeadLetter, Delivery, StoredEvent } from '@switchboard/contract';
import type { EventDeadLetterRow, EventDeliveryRow, EventWithRecords } from '@switchboard/store';
import { traceIdOf } from '@switchboard/runtime';
import { omitAbsent, parseJsonObject } from './omit-absent';

export function toDelivery(d: EventDeliveryRow): Delivery {
  return omitAbsent({
    delivery_id: d.delivery_id,
    status: d.status as Delivery['status'],
    subscriber_id: d.subscriber_id,
    subscriber_type: d.subscriber_type as Delivery['subscriber_type'],
    last_error: d.last_error,
    reason_code: d.reason_code,
    session_id: d.session_id,
    attempts: d.attempts,
    redrive_of_dead_letter_id: d.redrive_of_dead_letter_id,
  });
}

export function toDeadLetter(l: EventDeadLetterRow, redriveOf?: string | null): DeadLetter {
  return omitAbsent({
    dead_letter_id: l.dead_letter_id,
    chain_depth: l.chain_depth,
    created_at: l.created_at,
    failure_type: l.failure_type as DeadLetter['failure_type'],
    retry_count: l.retry_count,
    error_message: l.error_message,
    handler_node: l.handler_node,
    delivery_id: l.delivery_id,
    subscriber_id: l.subscriber_id,
    reason_code: l.reason_code,
    redrive:
      l.redriven_at && l.redrive_operation_id && l.redrive_delivery_id
        ? { redriven_at: l.redriven_at, actor_token_id: l.redriven_by_token_id ?? 'unknown', operation_id: l.redrive_operation_id, delivery_id: l.redrive_delivery_id }
        : undefined,
    redrive_of_dead_letter_id: redriveOf,
  });
}

export function toStoredEvent(e: EventWithRecords): StoredEvent {
  // A dead letter of a redrive delivery names the dead letter that delivery sent again.
  let redriveOf: Map<string, string> | undefined;
  for (const d of e.deliveries) if (d.redrive_of_dead_letter_id) (redriveOf ??= new Map()).set(d.delivery_id, d.redrive_of_dead_letter_id);
  // One object, not a spread of omitAbsent's: copying an object whose keys were added one by one
  // was a third of this function's time on a 50-event page.
  return omitAbsent({
    event_id: e.event_id,
    event_name: e.event_name,
    created_at: e.created_at,
    source: e.source,
    payload: parseJsonObject(e.payload) ?? {},
    entity_id: e.entity_id,
    run_id: e.run_id,
    chain_depth: e.chain_depth,
    parent_event_id: e.parent_event_id,
    replay_of_event_id: e.replay_of_event_id,
    trace_id: traceIdOf(e.traceparent),
    deliveries: e.deliveries.map(toDelivery),
    dead_letters: e.dead_letters.map((l) => toDeadLetter(l, l.delivery_id ? redriveOf?.get(l.delivery_id) : undefined)),
  });
}
