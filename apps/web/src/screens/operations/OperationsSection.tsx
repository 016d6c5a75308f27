/**
 * Redrive and replay operations on the Runtime page: running and past ones with their counts and
 * who started them. The one named in the URL (`?operation=`) opens with live progress and the
 * items it touched, each linked to its event.
 */
import { useEffect, useRef } from 'react';
import { Link, useLocation } from 'react-router';
import { useOperation, useOperations, type Operation } from '../../api/operations';
import { paths } from '../../paths';
import { ActorLabel } from '../../ui/ActorLabel';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { useUrlState } from '../../url-state';
import { OperationProgress, operationLabel, operationTone, remainingOf } from './OperationProgress';
import './OperationsSection.css';

export function OperationsSection() {
  const [params, update] = useUrlState();
  const list = useOperations({ limit: 20 });
  const openId = params.get('operation') ?? undefined;
  const location = useLocation();
  const sectionRef = useRef<HTMLElement>(null);
  // Links from the header and from dead letters land here; the router does not scroll to a hash.
  useEffect(() => {
    if (location.hash === '#operations') sectionRef.current?.scrollIntoView({ block: 'start' });
  }, [location.hash, openId]);

  return (
    <section ref={sectionRef} className="panel panel-full" aria-labelledby="operations-title" id="operations" data-testid="operations">
      <h2 id="operations-title">Redrive and replay operations</h2>
      {list.isPending ? (
        <LoadingState label="Loading operations" />
      ) : list.isError && list.data === undefined ? (
        <ErrorState compact error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.operations.length === 0 ? (
        <EmptyState title="No operations yet">
          <p>
            Redrive dead letters from <Link to="/dead-letters">Dead letters</Link>, or replay events from <Link to="/events">Events</Link>.
          </p>
        </EmptyState>
      ) : (
        <div className="table-scroll operations-table">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Sent
                </th>
                <th scope="col" className="hide-narrow">
                  Outcome
                </th>
                <th scope="col" className="hide-narrow">
                  By
                </th>
                <th scope="col">
                  <span className="visually-hidden">Open</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.operations.map((op) => (
                <OperationRow key={op.operation_id} op={op} open={op.operation_id === openId} onToggle={(open) => update({ operation: open ? op.operation_id : null })} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {openId && <OperationDetail operationId={openId} />}
    </section>
  );
}

function OperationRow({ op, open, onToggle }: { op: Operation; open: boolean; onToggle: (open: boolean) => void }) {
  return (
    <tr aria-selected={open} data-testid="operation-row">
      <td>
        <RelativeTime iso={op.created_at} />
      </td>
      <td>{op.kind}</td>
      <td>
        <StatusBadge value={operationLabel(op)} tone={operationTone(op.status)} />
        {op.records_removed_at ? <span className="muted small"> · records removed by a reset</span> : null}
      </td>
      <td className="num">
        {op.counts.done.toLocaleString()} / {op.counts.total.toLocaleString()}
        {op.status === 'running' && remainingOf(op) > 0 ? <span className="muted small"> ({remainingOf(op).toLocaleString()} left)</span> : null}
      </td>
      <td className="hide-narrow small">
        {op.outcomes.delivered.toLocaleString()} delivered
        {op.outcomes.dead_lettered ? <span className="bad"> · {op.outcomes.dead_lettered.toLocaleString()} dead-lettered</span> : null}
        {op.outcomes.pending ? ` · ${op.outcomes.pending.toLocaleString()} pending` : ''}
      </td>
      <td className="hide-narrow small">
        <ActorLabel id={op.actor_token_id} />
      </td>
      <td>
        <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => onToggle(!open)} data-testid="open-operation">
          {open ? 'Hide' : 'Details'}
        </button>
      </td>
    </tr>
  );
}

function OperationDetail({ operationId }: { operationId: string }) {
  const query = useOperation(operationId);
  return (
    <div className="operation-detail" aria-label={`Operation ${operationId}`} role="group">
      <h3>Operation details</h3>
      <OperationProgress operationId={operationId} />
      {query.data && (
        <>
          <h4>Items{query.data.items.length < query.data.operation.counts.total ? ` (first ${query.data.items.length})` : ''}</h4>
          <ul className="operation-items" aria-label="Operation items">
            {query.data.items.map((item) => (
              <li key={item.item_index}>
                <StatusBadge value={item.status} tone={item.status === 'done' ? 'ok' : item.status === 'failed' ? 'bad' : item.status === 'pending' ? 'neutral' : 'warn'} />{' '}
                {item.event_id ? (
                  <Link
                    className="mono"
                    to={query.data.operation.kind === 'redrive' ? paths.deadLetter(item.event_id, item.target_id) : paths.event(item.target_id)}
                  >
                    {item.target_id}
                  </Link>
                ) : (
                  <span className="mono">{item.target_id}</span>
                )}
                {item.result_id && (
                  <>
                    {' → '}
                    {query.data.operation.kind === 'replay' ? (
                      <Link className="mono" to={paths.event(item.result_id)}>
                        {item.result_id}
                      </Link>
                    ) : item.event_id ? (
                      <Link className="mono" to={paths.delivery(item.event_id, item.result_id)}>
                        {item.result_id}
                      </Link>
                    ) : (
                      <span className="mono">{item.result_id}</span>
                    )}
                  </>
                )}
                {item.outcome && (
                  <span className={item.outcome === 'dead_lettered' ? 'bad small' : 'muted small'} data-testid="item-outcome">
                    {' · '}
                    {item.outcome === 'dead_lettered' ? 'dead-lettered again' : item.outcome}
                  </span>
                )}
                {item.note && <span className="muted small"> · {item.note}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
