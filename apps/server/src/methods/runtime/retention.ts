import type { Handler } from '../../rpc/handler';
import { retentionRunOf, retentionStorageOf } from '../../records/retention';
import { omitAbsent } from '../../records/omit-absent';

export const runtimeRetention: Handler<'runtime.retention'> = async (_params, ctx) => {
  const status = await ctx.runtime.retention.status();
  const s = status.settings;
  return omitAbsent({
    enabled: status.enabled,
    settings: {
      history_days: s.historyDays,
      dead_letter_days: s.deadLetterDays,
      incident_rollup_days: s.incidentRollupDays,
      audit_days: s.auditDays,
      interval_s: Math.round(s.intervalMs / 1000),
      batch_size: s.batchSize,
      max_rows_per_second: s.maxRowsPerSecond,
    },
    last_run: status.last_run && retentionRunOf(status.last_run),
    last_preview: status.last_preview && retentionRunOf(status.last_preview),
    next_run_at: status.next_run_at,
    running_on: status.running_on,
    storage: retentionStorageOf(status.storage),
  });
};
