import { logLevel, type Incident, type LogRecord } from '@switchboard/contract';
import { parseCauseKey, type IncidentKey, type IncidentRow, type LogRow } from '@switchboard/store';
import { omitAbsent } from './omit-absent';

const INCIDENT_ID_PREFIX = 'inc_';
/** A tool server's component is its name, mcp.<server> (runtime-log.ts). */
const MCP_PREFIX = 'mcp.';

/**
 * An incident is a group, not a stored row: its id encodes the group key (component, error code,
 * and the cause when it has one), so runtime.incident_logs can address the same group without a
 * lookup table. A group without a cause keeps the id it had before causes (two elements).
 */
export function incidentId(key: IncidentKey): string {
  const parts = key.cause_key ? [key.component, key.error_code, key.cause_key] : [key.component, key.error_code];
  return INCIDENT_ID_PREFIX + Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export function parseIncidentId(id: string): IncidentKey | undefined {
  if (!id.startsWith(INCIDENT_ID_PREFIX)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(id.slice(INCIDENT_ID_PREFIX.length), 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length < 2 || value.length > 3) return undefined;
    const [component, errorCode, causeKey = ''] = value as unknown[];
    if (typeof component !== 'string' || (errorCode !== null && typeof errorCode !== 'string') || typeof causeKey !== 'string') return undefined;
    return { component, error_code: errorCode, cause_key: causeKey };
  } catch {
    return undefined;
  }
}

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
