import type { Run } from '@switchboard/contract';
import type { RunView } from '@switchboard/store';
import { traceIdOf } from '@switchboard/runtime';
import { omitAbsent } from './omit-absent';

export function toRun(row: RunView): Run {
  return omitAbsent({
    run_id: row.run_id,
    status: row.status as Run['status'],
    root_event_id: row.root_event_id,
    event_name: row.event_name,
    entity_id: row.entity_id,
    bundle_fingerprint: row.bundle_fingerprint,
    created_at: row.created_at,
    settled_at: row.settled_at,
    event_count: row.event_count,
    dead_letter_count: row.dead_letter_count,
    trace_id: traceIdOf(row.root_traceparent),
  });
}
