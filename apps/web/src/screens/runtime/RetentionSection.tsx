/**
 * Retention on the Runtime page (ADR 0018): how long each kind of record is kept, the store's
 * size, the last pass and the next, a preview (what a pass now would remove) and "Run now" behind
 * a confirmation. Server ids and errors come from the store: rendered as text only.
 */
import { useState } from 'react';
import { useRetention, useRetentionRun, type RetentionRun, type RetentionRunResult, type RetentionStatus } from '../../api/retention';
import { CountBreakdown } from '../../ui/CountBreakdown';
import { ErrorState } from '../../ui/ErrorState';
import { GuardedButton } from '../../ui/GuardedButton';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatBytes, keptFor, removedRows, totalRemoved } from './retention-format';
import './RetentionSection.css';

export function RetentionSection() {
  const retention = useRetention();
  return (
    <section className="panel panel-full" aria-labelledby="retention-title" id="retention" data-testid="retention">
      <h2 id="retention-title">Retention</h2>
      {retention.isPending ? (
        <LoadingState label="Loading retention" />
      ) : retention.isError && retention.data === undefined ? (
        <ErrorState compact error={retention.error} onRetry={() => void retention.refetch()} />
      ) : (
        <RetentionView status={retention.data} />
      )}
    </section>
  );
}

function RetentionView({ status }: { status: RetentionStatus }) {
  const run = useRetentionRun();
  const [confirming, setConfirming] = useState(false);
  const [shown, setShown] = useState<RetentionRunResult | undefined>(undefined);
  const s = status.settings;
  const start = (dryRun: boolean) => {
    setConfirming(false);
    setShown(undefined);
    run.mutate(dryRun, { onSuccess: (result) => setShown(result) });
  };
  return (
    <div className="retention">
      {!status.enabled && (
        <p className="callout callout-info" data-testid="retention-off">
          Retention is off: every kind of record is kept forever. Set the SWITCHBOARD_RETENTION_* days to remove old settled history.
        </p>
      )}
      <div className="retention-columns">
        <dl className="kv" data-testid="retention-settings">
          <dt>Settled history</dt>
          <dd>{keptFor(s.history_days)}</dd>
          <dt>Dead letters not redriven</dt>
          <dd>{keptFor(s.dead_letter_days)}</dd>
          <dt>Incident counts</dt>
          <dd>{keptFor(s.incident_rollup_days)}</dd>
          <dt>Audit trail</dt>
          <dd>{keptFor(s.audit_days)}</dd>
          <dt>Pace</dt>
          <dd className="small">
            up to {s.batch_size.toLocaleString()} runs a batch, at most {s.max_rows_per_second.toLocaleString()} rows/s, every {formatInterval(s.interval_s)}
          </dd>
        </dl>
        <dl className="kv" data-testid="retention-state">
          <dt>Store size</dt>
          <dd data-testid="retention-size">
            {formatBytes(status.storage.bytes)}
            {status.storage.free_bytes > 0 && <span className="muted small"> ({formatBytes(status.storage.free_bytes)} free inside)</span>}
          </dd>
          <dt>Last pass</dt>
          <dd data-testid="retention-last-run">{status.last_run ? <PassSummary run={status.last_run} /> : <span className="muted">No pass has run yet.</span>}</dd>
          <dt>Next pass</dt>
          <dd data-testid="retention-next-run">
            {status.running_on ? (
              <span>
                running now on <span className="mono">{status.running_on}</span>
              </span>
            ) : status.next_run_at ? (
              <RelativeTime iso={status.next_run_at} />
            ) : (
              <span className="muted">not scheduled</span>
            )}
          </dd>
        </dl>
      </div>
      {status.storage.reclaim === 'vacuum_needed' && (
        <p className="callout callout-info small" data-testid="retention-vacuum-needed">
          This SQLite file was made before retention: the room of removed rows is reused, but the file shrinks only after a one-time VACUUM while the server is
          stopped (see docs/retention.md).
        </p>
      )}
      <div className="retention-actions">
        <GuardedButton action="runtime.retention_run" className="btn" onClick={() => start(true)} disabled={run.isPending} data-testid="retention-preview">
          {run.isPending && run.variables === true ? 'Previewing…' : 'Preview'}
        </GuardedButton>
        <GuardedButton action="runtime.retention_run" className="btn btn-danger" onClick={() => setConfirming(true)} disabled={run.isPending || confirming} data-testid="retention-run-now">
          {run.isPending && run.variables === false ? 'Removing…' : 'Run now…'}
        </GuardedButton>
      </div>
      {confirming && (
        <div className="callout callout-bad retention-confirm" role="group" aria-label="Confirm a retention pass">
          <p>
            Remove settled history older than {keptFor(s.history_days)} now? Unfinished runs, dead letters not redriven and what open incidents show are kept. This
            cannot be undone.
          </p>
          <div className="retention-actions">
            <button type="button" className="btn" onClick={() => setConfirming(false)} autoFocus>
              Keep it
            </button>
            <button type="button" className="btn btn-danger" onClick={() => start(false)} data-testid="retention-confirm">
              Remove now
            </button>
          </div>
        </div>
      )}
      {run.isError && <ErrorState compact error={run.error} />}
      {shown && <RunOutcome result={shown} />}
    </div>
  );
}

function PassSummary({ run }: { run: RetentionRun }) {
  const total = totalRemoved(run.removed);
  return (
    <span>
      <RelativeTime iso={run.started_at} /> <StatusBadge value={run.status} tone={run.status === 'completed' ? 'ok' : run.status === 'running' ? 'info' : 'bad'} />{' '}
      <span className="small">
        {total === 0 ? 'nothing to remove' : `${total.toLocaleString()} rows removed`} · {run.trigger === 'manual' ? 'run by hand' : 'scheduled'} on{' '}
        <span className="mono">{run.server_id}</span>
      </span>
      {run.error && <span className="small wrap"> · {run.error}</span>}
    </span>
  );
}

function RunOutcome({ result }: { result: RetentionRunResult }) {
  if (!result.ran || !result.run) {
    return (
      <p className="callout callout-info" role="status" data-testid="retention-outcome">
        Another server, <span className="mono">{result.held_by}</span>, is removing old records now; try again when it has finished.
      </p>
    );
  }
  const { run } = result;
  const rows = removedRows(run.removed);
  const total = totalRemoved(run.removed);
  return (
    <div className="callout callout-ok retention-outcome" role="status" data-testid="retention-outcome">
      <p data-testid="retention-outcome-summary">
        {run.dry_run
          ? total === 0
            ? 'A pass now would remove nothing.'
            : `A pass now would remove ${total.toLocaleString()} rows.`
          : total === 0
            ? 'Nothing was old enough to remove.'
            : `Removed ${total.toLocaleString()} rows.`}
        {!run.dry_run && result.storage_before && result.storage_after && (
          <span className="small">
            {' '}
            Store size {formatBytes(result.storage_before.bytes)} → {formatBytes(result.storage_after.bytes)}.
          </span>
        )}
      </p>
      {rows.length > 0 && <CountBreakdown title={run.dry_run ? 'Would remove' : 'Removed'} rows={rows} className="retention-counts" />}
    </div>
  );
}

function formatInterval(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} s`;
}
