/**
 * A header link while redrive or replay operations run, so their progress stays in view on every
 * screen after the dialog that started them was closed.
 */
import { Link } from 'react-router';
import { useOperations } from '../api/operations';

export function RunningOperations() {
  const running = useOperations({ status: 'running', limit: 5 }, 2000);
  const ops = running.data?.operations ?? [];
  if (ops.length === 0) return null;
  const first = ops[0]!;
  const done = ops.reduce((n, o) => n + o.counts.done + o.counts.failed + o.counts.skipped, 0);
  const total = ops.reduce((n, o) => n + o.counts.total, 0);
  return (
    <Link
      to={`/runtime?operation=${encodeURIComponent(first.operation_id)}#operations`}
      className="running-operations"
      data-testid="running-operations"
      aria-label={`${ops.length} operation${ops.length === 1 ? '' : 's'} running: ${done} of ${total} items processed`}
    >
      <span aria-hidden="true">↻</span> {ops.length === 1 ? first.kind : `${ops.length} operations`} {done.toLocaleString()}/{total.toLocaleString()}
    </Link>
  );
}
