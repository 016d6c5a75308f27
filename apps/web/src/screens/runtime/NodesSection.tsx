/**
 * Every live server process on this store: id, host, pid, version, when it started, when its
 * heartbeat was last seen (counting on live), the handlers it is running, and which one this
 * console talks to. All strings come from the nodes' own rows: rendered as text only.
 */
import { useLiveNodes, type NodesReport } from '../../api/nodes';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { formatExact } from '../../ui/RelativeTime';
import { useNow } from '../../ui/use-now';
import { formatAge, nodeAgeMs } from './node-format';
import './NodesSection.css';

/** Often enough for tenths of a second to move. */
const AGE_TICK_MS = 250;

/** The table's columns; those marked hide-narrow give way at phone widths. */
const COLUMNS = [
  { label: 'Node', className: 'nodes-col-id' },
  { label: 'Host', className: 'hide-narrow nodes-col-host' },
  { label: 'PID', className: 'hide-narrow num nodes-col-pid' },
  { label: 'Version', className: 'hide-narrow nodes-col-version' },
  { label: 'Started', className: 'hide-narrow nodes-col-started' },
  { label: 'Last seen', className: 'nodes-col-seen' },
  { label: 'In flight', className: 'num nodes-col-flight' },
] as const;

export function NodesSection() {
  const live = useLiveNodes();
  return (
    <section className="panel panel-full" aria-labelledby="nodes-title" id="nodes" data-testid="nodes">
      <h2 id="nodes-title">Nodes</h2>
      {live.report ? (
        <NodesReportView report={live.report} />
      ) : live.isPending ? (
        <LoadingState label="Loading live nodes" />
      ) : (
        <ErrorState compact error={live.error} onRetry={live.refetch} />
      )}
    </section>
  );
}

function NodesReportView({ report }: { report: NodesReport }) {
  const now = useNow(AGE_TICK_MS);
  const { nodes, status } = report.result;
  const time = { ts: report.result.ts, receivedAt: report.receivedAt };
  if (status === 'down') {
    return (
      <p className="callout callout-bad" data-testid="nodes-unknown">
        The store is unreachable, so the live nodes cannot be read. They show again once it answers.
      </p>
    );
  }
  if (nodes.length === 0) {
    return (
      <p className="muted" role="status" data-testid="nodes-empty">
        No live nodes reported.
      </p>
    );
  }
  const inFlight = nodes.reduce((sum, n) => sum + n.in_flight_handlers, 0);
  return (
    <>
      <p className="muted small" data-testid="nodes-summary">
        {nodes.length === 1 ? '1 live node' : `${nodes.length} live nodes`} · {inFlight === 1 ? '1 handler' : `${inFlight} handlers`} in flight · reported{' '}
        {formatAge(now - report.receivedAt)} by {report.source === 'heartbeat' ? 'the heartbeat' : 'health.check'}
      </p>
      <div className="table-scroll nodes-table">
        <table className="data">
          <caption className="visually-hidden">Live server nodes</caption>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th key={c.label} scope="col" className={c.className}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {nodes.map((n) => {
              const started = formatAge(nodeAgeMs(n.started_at, time, now));
              return (
                <tr key={n.node_id} data-testid="node-row" data-node-id={n.node_id} data-self={n.self}>
                  <th scope="row">
                    <span className="node-name">
                      {n.self && (
                        <span className="badge badge-info" data-testid="this-node" title="The node this console talks to">
                          this node
                        </span>
                      )}
                      {/* Focusable so that keyboard users can unfold a truncated id, as hovering does. */}
                      <span className="node-id mono" tabIndex={0} title={n.node_id} data-testid="node-id">
                        {n.node_id}
                      </span>
                    </span>
                    {/* On phones the hidden columns fold into a line under the id. */}
                    <span className="node-facts-narrow muted small">
                      {n.host} · pid {n.pid} · {n.version} · started {started}
                    </span>
                  </th>
                  <td className="hide-narrow" title={n.host}>
                    {n.host}
                  </td>
                  <td className="hide-narrow num mono" data-testid="node-pid">
                    {n.pid}
                  </td>
                  <td className="hide-narrow mono" title={n.version}>
                    {n.version}
                  </td>
                  <td className="hide-narrow">
                    <time dateTime={n.started_at} title={formatExact(n.started_at)}>
                      {started}
                    </time>
                  </td>
                  <td>
                    <time dateTime={n.last_seen_at} title={formatExact(n.last_seen_at)} data-testid="node-last-seen">
                      {formatAge(nodeAgeMs(n.last_seen_at, time, now))}
                    </time>
                  </td>
                  <td className="num" data-testid="node-in-flight">
                    {n.in_flight_handlers}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
