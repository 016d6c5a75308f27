import { logLevel, type Incident, type LogRecord } from '@switchboard/contract';
import type { IncidentRow } from '@switchboard/runtime';
import { incidentId, parseCauseKey, parseIncidentId, type LogRow } from '@switchboard/store';
import { omitAbsent } from './omit-absent';

/** A tool server's component is its name, mcp.<server> (runtime-log.ts). */
const MCP_PREFIX = 'mcp.';

// Incident ids are encoded in the store, where the alerts that name incidents can reach them too.
export { incidentId, parseIncidentId };

export function levelName(rank: number): Incident['level'] {
  return logLevel.options[Math.max(0, Math.min(logLevel.options.length - 1, rank))]!;
}

export function toIncident(row: IncidentRow): Incident {
  return omitAbsent({
    incident_id: incidentId(row),
    component: row.component,
    count: row.count,
    first_seen: row.first_seen,
    last_seen: row.last_seen,
    level: levelName(row.level_rank),
    sample_log_ids: row.sample_log_ids,
    sample_message: row.sample_message,
    error_code: row.error_code,
    histogram: row.histogram,
    state: row.state.state,
    regressed: row.state.regressed,
    state_changed_at: row.state.changed_at,
    state_changed_by: row.state.actor_token_id,
    ignore_until: row.state.ignore_until,
    ignore_remaining: row.state.ignore_remaining,
    trend: row.trend,
    ...parseCauseKey(row.cause_key),
    tool_server: row.component.startsWith(MCP_PREFIX) ? row.component : undefined,
  });
}

export function toLogRecord(row: LogRow): LogRecord {
  return omitAbsent({
    log_id: row.log_id,
    ts: row.ts,
    level: row.level as LogRecord['level'],
    component: row.component,
    error_code: row.error_code,
    message: row.message,
    event_id: row.event_id,
    run_id: row.run_id,
    delivery_id: row.delivery_id,
    dead_letter_id: row.dead_letter_id,
    entity_id: row.entity_id,
    session_id: row.session_id,
  });
}
