/** Retention passes and store sizes as the contract shapes them (runtime.retention, runtime.retention_run, health.check). */
import type { Result } from '@switchboard/contract';
import type { RetentionRunRecord, StorageReading } from '@switchboard/store';
import { omitAbsent } from './omit-absent';

type ContractRun = NonNullable<Result<'runtime.retention'>['last_run']>;

export function retentionRunOf(run: RetentionRunRecord): ContractRun {
  return omitAbsent({
    retention_run_id: run.retention_run_id,
    started_at: run.started_at,
    finished_at: run.finished_at,
    dry_run: run.dry_run,
    trigger: run.trigger,
    server_id: run.server_id,
    status: run.status,
    cutoffs: omitAbsent({ history: run.cutoffs.history, dead_letters: run.cutoffs.deadLetters, incident_hours: run.cutoffs.incidentHours, audit: run.cutoffs.audit }),
    removed: run.removed,
    error: run.error,
  });
}

export function retentionStorageOf(reading: StorageReading): Result<'runtime.retention'>['storage'] {
  return { bytes: reading.bytes, free_bytes: reading.freeBytes, reclaim: reading.reclaim };
}
