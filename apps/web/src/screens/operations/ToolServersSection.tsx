/**
 * The bundle's simulated tool servers, with the switch an operator flips to "fix" a failing
 * provider (faults off) before redriving its dead letters, or to break it again.
 */
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useSetToolServerFaults, useToolServers } from '../../api/operations';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { newIdempotencyKey } from '../../ui/Modal';
import { StatusBadge } from '../../ui/StatusBadge';
import { GuardedButton } from '../../ui/GuardedButton';
import './ToolServersSection.css';

const percent = (n: number) => `${Math.round(n * 100)}%`;

export function ToolServersSection() {
  const servers = useToolServers();
  const setFaults = useSetToolServerFaults();
  const [notice, setNotice] = useState<string | null>(null);
  // An incident links here with ?tool_server=<name>: that row is marked and brought into view.
  const [params] = useSearchParams();
  const wanted = params.get('tool_server');
  const wantedRow = useRef<HTMLTableRowElement>(null);
  const loaded = servers.isSuccess;
  useEffect(() => {
    if (loaded && wanted) wantedRow.current?.scrollIntoView({ block: 'center' });
  }, [loaded, wanted]);
  return (
    <section className="panel panel-full" id="tool-servers" aria-labelledby="tools-title" data-testid="tool-servers">
      <h2 id="tools-title">Tool servers</h2>
      <p className="muted small">Simulated MCP providers of the bundle. Turning a server&apos;s faults off makes its calls succeed, as a fixed provider would.</p>
      {servers.isPending ? (
        <LoadingState label="Loading tool servers" />
      ) : servers.isError && servers.data === undefined ? (
        <ErrorState compact error={servers.error} onRetry={() => void servers.refetch()} />
      ) : servers.data.tool_servers.length === 0 ? (
        <p className="muted">This bundle has no tool servers.</p>
      ) : (
        <div className="table-scroll tool-servers-table">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col" className="hide-narrow">
                  Tools
                </th>
                <th scope="col">Faults</th>
                <th scope="col">
                  <span className="visually-hidden">Switch</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {servers.data.tool_servers.map((t) => {
                const faulty = t.failure_rate + t.timeout_rate > 0;
                const next = t.faults === 'on' ? 'off' : 'on';
                return (
                  <tr
                    key={t.name}
                    data-testid="tool-server"
                    data-name={t.name}
                    aria-current={t.name === wanted ? 'true' : undefined}
                    ref={t.name === wanted ? wantedRow : undefined}
                  >
                    <th scope="row">
                      <span className="mono">{t.name}</span>
                      {t.description && <div className="muted small">{t.description}</div>}
                    </th>
                    <td className="hide-narrow mono small">{t.tools.join(', ')}</td>
                    <td>
                      {faulty ? (
                        <>
                          <StatusBadge value={t.faults} tone={t.faults === 'on' ? 'warn' : 'ok'} />{' '}
                          <span className="muted small">
                            {percent(t.failure_rate)} fail{t.timeout_rate ? `, ${percent(t.timeout_rate)} hang` : ''}
                          </span>
                        </>
                      ) : (
                        <span className="muted small">none configured</span>
                      )}
                    </td>
                    <td>
                      {faulty && (
                        <GuardedButton
                          action="runtime.set_tool_server_faults"
                          className="btn btn-small"
                          disabled={setFaults.isPending}
                          data-testid="toggle-faults"
                          onClick={() =>
                            setFaults.mutate(
                              { tool_server: t.name, faults: next, idempotency_key: newIdempotencyKey() },
                              { onSuccess: () => setNotice(`${t.name}: faults turned ${next}.`) },
                            )
                          }
                        >
                          {next === 'off' ? 'Turn faults off' : 'Turn faults on'}
                        </GuardedButton>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {setFaults.error && <ErrorState compact error={setFaults.error} />}
      {notice && (
        <p className="small" role="status">
          {notice}
        </p>
      )}
    </section>
  );
}
