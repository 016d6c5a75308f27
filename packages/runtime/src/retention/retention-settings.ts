/**
 * How long each kind of record is kept and how a pass is paced (ADR 0018; the defaults' reasons
 * are in docs/retention.md). Days of 0 keep that kind forever.
 */
import type { RetentionCutoffs } from '@switchboard/store';

export interface RetentionSettings {
  /** Settled runs with their events, deliveries, dead letters, turns and log records; log records no run owns. */
  historyDays: number;
  /** A settled run with a dead letter nobody redrove: kept this long (at least as long as history). */
  deadLetterDays: number;
  /** The hourly incident rollup (the incidents' counts). */
  incidentRollupDays: number;
  /** The audit trail. */
  auditDays: number;
  /** Time between scheduled passes. */
  intervalMs: number;
  /** Runs (or log records, audit records) removed per transaction. */
  batchSize: number;
  /** Rows removed per second at most, over a pass. */
  maxRowsPerSecond: number;
}

export const DEFAULT_RETENTION_SETTINGS: RetentionSettings = {
  historyDays: 30,
  deadLetterDays: 90,
  incidentRollupDays: 400,
  auditDays: 0,
  intervalMs: 3_600_000,
  batchSize: 200,
  maxRowsPerSecond: 5_000,
};

/** The longest look-back runtime.incidents takes (since_hours at most 24 * 90): the rollup must outlive it. */
export const LONGEST_INCIDENT_LOOK_BACK_DAYS = 90;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Whether any kind has a limit: with none, no pass is scheduled. */
export function retentionEnabled(settings: RetentionSettings): boolean {
  return settings.historyDays > 0 || settings.incidentRollupDays > 0 || settings.auditDays > 0;
}

/**
 * The cut-offs of a pass at `now`. History's is an hour's start, so that every log record a pass
 * removes is in an hour wholly before it: incident counts of those hours then come from the rollup
 * whole (IncidentRepository.windowGroups).
 */
export function cutoffsAt(now: Date, settings: RetentionSettings): RetentionCutoffs {
  const before = (days: number) => (days > 0 ? new Date(now.getTime() - days * DAY_MS) : undefined);
  const hourStart = (d: Date | undefined) => d && new Date(d.getTime() - (d.getTime() % HOUR_MS)).toISOString();
  return {
    history: hourStart(before(settings.historyDays)),
    deadLetters: hourStart(before(settings.deadLetterDays)),
    incidentHours: hourStart(before(settings.incidentRollupDays)),
    audit: before(settings.auditDays)?.toISOString(),
  };
}
