/**
 * Live progress of one redrive or replay operation: items sent, failed, skipped and remaining,
 * the rate and the time left, and what became of the deliveries it created. Cancel stops it.
 */
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useOperation, useCancelOperation, type Operation } from '../../api/operations';
import { rpcKeys } from '../../api/query-client';
import { CopyId } from '../../ui/CopyId';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { StatusBadge } from '../../ui/StatusBadge';
import { useDialogKey } from '../../ui/Modal';
import { GuardedButton } from '../../ui/GuardedButton';
import './OperationProgress.css';

export function remainingOf(op: Operation): number {
  return Math.max(0, op.counts.total - op.counts.done - op.counts.failed - op.counts.skipped);
}

export function timeLeft(op: Operation): string {
  const seconds = Math.ceil(remainingOf(op) / op.rate_per_second);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min ${seconds % 60} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function operationTone(status: Operation['status']): 'ok' | 'warn' | 'bad' | 'info' {
  return status === 'completed' ? 'ok' : status === 'running' ? 'info' : status === 'failed' ? 'bad' : 'warn';
}

/** Items that failed or whose deliveries dead-lettered again. */
export function failedAgainOf(op: Operation): number {
  return op.counts.failed + op.outcomes.dead_lettered;
}

/** The status as shown: a finish with re-failures says how many ('completed · 14 of 14 failed again'). */
export function operationLabel(op: Operation): string {
  if (op.status === 'completed_with_failures') return `completed · ${failedAgainOf(op).toLocaleString()} of ${(op.counts.done + op.counts.failed).toLocaleString()} failed again`;
  if (op.status === 'paused') return `paused · ${failedAgainOf(op).toLocaleString()} failed again`;
  return op.status;
}

export function OperationProgress({ operationId }: { operationId: string }) {
  const query = useOperation(operationId);
  const cancel = useCancelOperation();
  const { key } = useDialogKey(true);
  const queryClient = useQueryClient();
  const op0 = query.data?.operation;
  const settled = op0 !== undefined && op0.status !== 'running' && op0.outcomes.pending === 0;
  // Once what the operation sent has settled, event views show the new deliveries and lineage.
  useEffect(() => {
    if (settled) void queryClient.invalidateQueries({ queryKey: rpcKeys.method('event.list') });
  }, [settled, queryClient]);
  if (query.isPending) return <LoadingState label="Loading progress" />;
  if (query.isError && query.data === undefined) return <ErrorState compact error={query.error} onRetry={() => void query.refetch()} />;
  const op = query.data.operation;
  const { total, done, failed, skipped } = op.counts;
  const processed = done + failed + skipped;
  const percent = total === 0 ? 100 : Math.round((processed / total) * 100);
  const sentWhat = op.kind === 'redrive' ? 'deliveries' : 'events';
  return (
    <div className="operation-progress" data-testid="operation-progress" data-status={op.status}>
      <div className="operation-progress-head">
        <StatusBadge value={operationLabel(op)} tone={operationTone(op.status)} />
        <CopyId id={op.operation_id} what="operation id" />
      </div>
      <progress max={Math.max(total, 1)} value={total === 0 ? 1 : processed} aria-label={`${percent}% of items processed`} />
      <dl className="kv operation-counts" aria-live="polite">
        <dt>Sent</dt>
        <dd data-testid="op-done">
          {done.toLocaleString()} of {total.toLocaleString()}
        </dd>
        <dt>Failed</dt>
        <dd className={failed ? 'bad' : undefined} data-testid="op-failed">
          {failed.toLocaleString()}
        </dd>
        <dt>Skipped</dt>
        <dd data-testid="op-skipped">{skipped.toLocaleString()}</dd>
        <dt>Remaining</dt>
        <dd data-testid="op-remaining">
          {remainingOf(op).toLocaleString()}
          {op.status === 'running' && remainingOf(op) > 0 ? ` · about ${timeLeft(op)} left at ${op.rate_per_second}/s` : ''}
        </dd>
        <dt>New {sentWhat}</dt>
        <dd data-testid="op-outcomes">
          <span className="ok-text">{op.outcomes.delivered.toLocaleString()} delivered</span> ·{' '}
          <span className={op.outcomes.dead_lettered ? 'bad' : undefined}>{op.outcomes.dead_lettered.toLocaleString()} dead-lettered again</span> ·{' '}
          {op.outcomes.pending.toLocaleString()} pending
        </dd>
      </dl>
      {op.error && <p className="callout callout-bad">{op.error}</p>}
      {op.status === 'paused' && (
        <p className="callout callout-warn" data-testid="op-paused">
          Paused after {failedAgainOf(op).toLocaleString()} re-failures (stop after {op.stop_after_failures?.toLocaleString()}); nothing more is sent. Fix the subscriber, then
          redrive what is left, or cancel.
        </p>
      )}
      {op.records_removed_at && (
        <p className="callout callout-info" data-testid="op-records-removed">
          A runtime reset removed the deliveries and events this operation created; its counts and outcomes are as recorded before.
        </p>
      )}
      {(op.status === 'running' || op.status === 'paused') && (
        <div>
          <GuardedButton
            action="operation.cancel"
            className="btn btn-small"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate({ operation_id: op.operation_id, idempotency_key: key })}
            data-testid="cancel-operation"
          >
            {cancel.isPending ? 'Cancelling…' : 'Cancel operation'}
          </GuardedButton>
          {cancel.error && <ErrorState compact error={cancel.error} />}
        </div>
      )}
    </div>
  );
}
