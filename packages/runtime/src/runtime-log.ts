/**
 * Structured runtime log records, written to the store's `logs` table where runtime.incidents
 * groups them by (component, error_code, cause_key); a dead letter's record has its subscriber and
 * reason as its cause (deadLetterCauseKey). Components of MCP tool servers are named "mcp.<server>"
 * and flagged is_mcp so the mcp_only filter can select them.
 */
import type { Clock, LogRepository, NewLogRecord, StoreTx } from '@switchboard/store';
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

/** Told of warn-or-worse records an alert rule may care about (see alerts/notice-maker.ts). */
export interface IncidentWatcher {
  /** In memory: whether this record may open or regress its incident. */
  watchesRecord(record: NewLogRecord): boolean;
  /** In the record's transaction. */
  incidentRecord(record: NewLogRecord & { log_id: string }, tx: StoreTx): Promise<void>;
}

export class RuntimeLog {
  private watcher: { watch: IncidentWatcher; transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => Promise<T> } | undefined;

  constructor(
    private readonly logs: LogRepository,
    private readonly clock: Clock,
  ) {}

  /** Alert notices about incidents commit with the record that opened or regressed them. */
  watchIncidents(watch: IncidentWatcher, transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => Promise<T>): void {
    this.watcher = { watch, transaction };
  }

  /** Writes in the caller's transaction when given, so a record commits with what it describes. */
  async write(entry: LogEntry, tx?: StoreTx): Promise<string> {
    const now = this.clock.now();
    const log_id = newId('log', now);
    const record = {
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
    };
    const watcher = record.level_rank >= LEVEL_RANK.warn && this.watcher?.watch.watchesRecord(record) ? this.watcher : undefined;
    if (!watcher) {
      await this.logs.write(record, tx);
      return log_id;
    }
    const writeBoth = async (t: StoreTx) => {
      await this.logs.write(record, t);
      await watcher.watch.incidentRecord(record, t);
    };
    await (tx ? writeBoth(tx) : watcher.transaction(writeBoth));
    return log_id;
  }
}
