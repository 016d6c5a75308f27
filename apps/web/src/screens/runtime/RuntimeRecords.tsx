/** The Runtime page's records: publishes queued while ingress is paused, and past resets. */
import { Link } from 'react-router';
import { useQueuedPublishes, useResets } from '../../api/runtime';
import { paths } from '../../paths';
import { ActorLabel } from '../../ui/ActorLabel';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';

export function QueuedPublishes() {
  const queue = useQueuedPublishes(true);
  if (queue.isPending) return <LoadingState label="Loading queued publishes" />;
  if (queue.isError && queue.data === undefined) return <ErrorState compact error={queue.error} onRetry={() => void queue.refetch()} />;
  const { queued, queue_depth } = queue.data;
  if (queued.length === 0) return <p className="muted small">Nothing queued yet.</p>;
  return (
    <div className="queued-publishes" data-testid="queued-publishes">
      <p className="small">
        {queue_depth > queued.length ? `The first ${queued.length} of ${queue_depth.toLocaleString()}` : `${queued.length.toLocaleString()} queued`}, in the order resume releases them:
      </p>
      <ol>
        {queued.map((q) => (
          <li key={q.queue_id}>
            <code className="event-name">{q.event_name}</code> <RelativeTime iso={q.queued_at} />{' '}
            {q.entity_id && (
              <Link to={paths.entity(q.entity_id)} className="mono small">
                {q.entity_id}
              </Link>
            )}{' '}
            <span className="muted small mono">{q.event_id}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function PastResets() {
  const resets = useResets();
  return (
    <section className="panel panel-full" aria-labelledby="resets-title" id="resets" data-testid="past-resets">
      <h2 id="resets-title">Past resets</h2>
      {resets.isPending ? (
        <LoadingState label="Loading past resets" />
      ) : resets.isError && resets.data === undefined ? (
        <ErrorState compact error={resets.error} onRetry={() => void resets.refetch()} />
      ) : resets.data.resets.length === 0 ? (
        <p className="muted">This runtime has never been reset.</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Result</th>
                <th scope="col">Counts</th>
                <th scope="col">By</th>
                <th scope="col">Reason</th>
                <th scope="col" className="hide-narrow">
                  Plan hash
                </th>
              </tr>
            </thead>
            <tbody>
              {resets.data.resets.map((r) => (
                <tr key={r.reset_id} data-testid="past-reset">
                  <td>
                    <RelativeTime iso={r.started_at} />
                  </td>
                  <td>
                    <StatusBadge value={r.status} tone={r.status === 'completed' ? 'ok' : r.status === 'in_progress' ? 'info' : r.status === 'refused' ? 'warn' : 'bad'} />
                  </td>
                  <td className="small">
                    <ResetCounts record={r} />
                  </td>
                  <td className="small">
                    <ActorLabel id={r.actor_token_id} name={r.actor_token_name} />
                  </td>
                  <td className="wrap-cell reset-reason">{r.reason ?? <span className="muted">—</span>}</td>
                  <td className="hide-narrow mono small" title={r.plan_hash}>
                    {r.plan_hash ? `${r.plan_hash.slice(0, 19)}…` : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type ResetRecord = NonNullable<ReturnType<typeof useResets>['data']>['resets'][number];

/**
 * What a reset removed (rows per table, the tables that had any), or for a refused apply what
 * had changed since its preview (the diff per table).
 */
function ResetCounts({ record }: { record: ResetRecord }) {
  const result = (record.result ?? {}) as { cleanup?: { deleted?: Record<string, number> | null }; plan?: { remove?: Record<string, number> }; diff?: Record<string, number> };
  if (record.status === 'refused') {
    const diff = Object.entries(result.diff ?? {});
    return diff.length === 0 ? (
      <span className="muted">refused: plan stale</span>
    ) : (
      <span>
        refused, changed since preview: {diff.map(([t, n]) => `${t} ${n > 0 ? '+' : ''}${n.toLocaleString()}`).join(', ')}
      </span>
    );
  }
  const counts = result.cleanup?.deleted ?? result.plan?.remove;
  const rows = Object.entries(counts ?? {}).filter(([, n]) => n > 0);
  if (rows.length === 0) return <span className="muted">{counts ? 'nothing to remove' : '—'}</span>;
  const total = rows.reduce((sum, [, n]) => sum + n, 0);
  return (
    <span title={rows.map(([t, n]) => `${t}: ${n.toLocaleString()}`).join('\n')}>
      {total.toLocaleString()} rows: {rows.map(([t, n]) => `${t} ${n.toLocaleString()}`).join(', ')}
    </span>
  );
}
