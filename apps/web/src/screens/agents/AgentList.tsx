/** Every agent the bundle declares, with its status and how its last turn went. */
import { Link } from 'react-router';
import { useAgents } from '../../api/agents';
import { paths } from '../../paths';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { AGENT_STATUS_TONE } from './agent-format';
import { RefreshButton } from '../../ui/RefreshButton';

export function AgentList() {
  const query = useAgents();
  const agents = query.data?.pages.flatMap((p) => p.agents) ?? [];
  return (
    <section className="screen" aria-labelledby="agents-title">
      <div className="screen-header">
        <h1 id="agents-title">Agents</h1>
        {query.isSuccess && (
          <span className="count">
            {agents.length} agent{agents.length === 1 ? '' : 's'}
          </span>
        )}
        <RefreshButton query={query} />
      </div>
      <div className="split-main">
        {query.isPending ? (
          <LoadingState label="Loading agents" />
        ) : query.isError && query.data === undefined ? (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        ) : agents.length === 0 ? (
          <EmptyState title="No agents">
            <p>The loaded bundle declares no agents.</p>
          </EmptyState>
        ) : (
          <div className="table-scroll">
            <table className="data" aria-label="Agents">
              <colgroup>
                <col />
                <col className="hide-narrow" style={{ width: '11%' }} />
                <col className="hide-narrow" style={{ width: '38%' }} />
                <col className="hide-narrow" style={{ width: 96 }} />
                <col style={{ width: 72 }} />
                <col style={{ width: 190 }} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col" className="hide-narrow">
                    Type
                  </th>
                  <th scope="col" className="hide-narrow">
                    Role
                  </th>
                  <th scope="col" className="hide-narrow">
                    Model tier
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Last turn</th>
                </tr>
              </thead>
              <tbody>
                {agents.map((a) => (
                  <tr key={a.agent_id} data-testid="agent-row">
                    <td title={a.agent_id}>
                      <Link className="row-link" to={paths.agent(a.agent_id)}>
                        {a.agent_id}
                      </Link>
                    </td>
                    <td className="hide-narrow">{a.type}</td>
                    <td className="hide-narrow sample" title={a.role}>
                      {a.role}
                    </td>
                    <td className="hide-narrow">{a.model_tier}</td>
                    <td>
                      <StatusBadge value={a.status} tone={AGENT_STATUS_TONE[a.status]} />
                    </td>
                    <td title={a.last_turn_ref?.error}>
                      {a.last_turn_ref ? (
                        <>
                          <StatusBadge value={a.last_turn_ref.parse_ok ? 'parsed' : 'parse failed'} tone={a.last_turn_ref.parse_ok ? 'ok' : 'bad'} />{' '}
                          <span className="muted small">
                            <RelativeTime iso={a.last_turn_ref.completed_at} />
                          </span>
                        </>
                      ) : (
                        <span className="muted">no turns yet</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
