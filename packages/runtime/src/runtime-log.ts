/**
 * Structured runtime log records, written to the store's `logs` table where runtime.incidents
 * groups them by (component, error_code, cause_key); a dead letter's record has its subscriber and
 * reason as its cause (deadLetterCauseKey). Components of MCP tool servers are named "mcp.<server>"
 * and flagged is_mcp so the mcp_only filter can select them.
 */
import type { Clock, LogRepository, StoreTx } from '@switchboard/store';
import { newId } from './ids';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';
export const LEVEL_RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, fatal: 4 };

export interface LogEntry {
  level: LogLevel;
  component: string;
  message: string;
  error_code?: string;
  event_id?: string | null;
  run_id?: string | null;
  delivery_id?: string | null;
  dead_letter_id?: string | null;
  entity_id?: string | null;
  session_id?: string | null;
  /** What the incident groups by besides component and code (a dead letter's subscriber and reason). */
  cause_key?: string;
}

export function isMcpComponent(component: string): boolean {
  return component.startsWith('mcp.');
}

export class RuntimeLog {
  constructor(
    private readonly logs: LogRepository,
    private readonly clock: Clock,
  ) {}

  /** Writes in the caller's transaction when given, so a record commits with what it describes. */
  async write(entry: LogEntry, tx?: StoreTx): Promise<string> {
    const now = this.clock.now();
    const log_id = newId('log', now);
    await this.logs.write(
      {
        log_id,
        ts: now.toISOString(),
        level: entry.level,
        level_rank: LEVEL_RANK[entry.level],
        component: entry.component,
        error_code: entry.error_code ?? null,
        message: entry.message.slice(0, 4000),
        is_mcp: isMcpComponent(entry.component) ? 1 : 0,
        event_id: entry.event_id ?? null,
        run_id: entry.run_id ?? null,
        delivery_id: entry.delivery_id ?? null,
        dead_letter_id: entry.dead_letter_id ?? null,
        entity_id: entry.entity_id ?? null,
        session_id: entry.session_id ?? null,
        cause_key: entry.cause_key ?? '',
      },
      tx,
    );
    return log_id;
  }
}
