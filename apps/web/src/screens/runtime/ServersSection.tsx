/**
 * Every live server process on this store: id, host, pid, version, when it started, when its
 * heartbeat was last seen (counting on live), the handlers it is running, and which one this
 * console talks to. All strings come from the servers' own rows: rendered as text only.
 */
import { useLiveServers, type ServersReport } from '../../api/servers';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { formatExact } from '../../ui/RelativeTime';
import { useNow } from '../../ui/use-now';
import { formatAge, serverAgeMs } from './server-format';
import './ServersSection.css';

/** Often enough for tenths of a second to move. */
const AGE_TICK_MS = 250;

/** The table's columns; those marked hide-narrow give way at phone widths. */
const COLUMNS = [
  { label: 'Server', className: 'servers-col-id' },
  { label: 'Host', className: 'hide-narrow servers-col-host' },
  { label: 'PID', className: 'hide-narrow num servers-col-pid' },
  { label: 'Version', className: 'hide-narrow servers-col-version' },
  { label: 'Started', className: 'hide-narrow servers-col-started' },
  { label: 'Last seen', className: 'servers-col-seen' },
  { label: 'In flight', className: 'num servers-col-flight' },
] as const;

export function ServersSection() {
  const live = useLiveServers();
  return (
    <section className="panel panel-full" aria-labelledby="servers-title" id="servers" data-testid="servers">
      <h2 id="servers-title">Servers</h2>
      {live.report ? (
        <ServersReportView report={live.report} />
      ) : live.isPending ? (
        <LoadingState label="Loading live servers" />
      ) : (
        <ErrorState compact error={live.error} onRetry={live.refetch} />
      )}
    </section>
  );
}

function ServersReportView({ report }: { report: ServersReport }) {
  const now = useNow(AGE_TICK_MS);
  const { servers, status } = report.result;
  const time = { ts: report.result.ts, receivedAt: report.receivedAt };
  if (status === 'down') {
    return (
      <p className="callout callout-bad" data-testid="servers-unknown">
        The store is unreachable, so the live servers cannot be read. They show again once it answers.
      </p>
    );
  }
  if (servers.length === 0) {
    return (
      <p className="muted" role="status" data-testid="servers-empty">
        No live servers reported.
      </p>
    );
  }
  const inFlight = servers.reduce((sum, n) => sum + n.in_flight_handlers, 0);
  return (
    <>
      <p className="muted small" data-testid="servers-summary">
        {servers.length === 1 ? '1 live server' : `${servers.length} live servers`} · {inFlight === 1 ? '1 handler' : `${inFlight} handlers`} in flight · reported{' '}
        {formatAge(now - report.receivedAt)} by {report.source === 'heartbeat' ? 'the heartbeat' : 'health.check'}
      </p>
      <div className="table-scroll servers-table">
        <table className="data">
          <caption className="visually-hidden">Live servers</caption>
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
            {servers.map((n) => {
              const started = formatAge(serverAgeMs(n.started_at, time, now));
              return (
                <tr key={n.server_id} data-testid="server-row" data-server-id={n.server_id} data-self={n.self}>
                  <th scope="row">
                    <span className="server-name">
                      {n.self && (
                        <span className="badge badge-info" data-testid="this-server" title="The server this console talks to">
                          this server
                        </span>
                      )}
                      {/* Focusable so that keyboard users can unfold a truncated id, as hovering does. */}
                      <span className="server-id mono" tabIndex={0} title={n.server_id} data-testid="server-id">
                        {n.server_id}
                      </span>
                    </span>
                    {/* On phones the hidden columns fold into a line under the id. */}
                    <span className="server-facts-narrow muted small">
                      {n.host} · pid {n.pid} · {n.version} · started {started}
                    </span>
                  </th>
                  <td className="hide-narrow" title={n.host}>
                    {n.host}
                  </td>
                  <td className="hide-narrow num mono" data-testid="server-pid">
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
                    <time dateTime={n.last_seen_at} title={formatExact(n.last_seen_at)} data-testid="server-last-seen">
                      {formatAge(serverAgeMs(n.last_seen_at, time, now))}
                    </time>
                  </td>
                  <td className="num" data-testid="server-in-flight">
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
