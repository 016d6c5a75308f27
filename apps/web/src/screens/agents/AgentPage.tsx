/**
 * One agent: identity, operational status, its current session and last turn (references from
 * agent.get, linking to the transcript), and its recent sessions from conversation.list.
 */
import { Link } from 'react-router';
import { useAgent } from '../../api/agents';
import { ApiError } from '../../api/client';
import { useConversations } from '../../api/conversations';
import { paths } from '../../paths';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { AGENT_STATUS_TONE } from './agent-format';
import { RefreshButton } from '../../ui/RefreshButton';
import './AgentPage.css';

export function AgentPage({ agentId }: { agentId: string }) {
  const query = useAgent(agentId);
  return (
    <section className="screen screen-page" aria-labelledby="agent-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/agents">Agents</Link> <span aria-hidden="true">/</span> <span className="mono">{agentId}</span>
      </nav>
      <div className="screen-header">
        <h1 id="agent-title">{agentId}</h1>
        {query.data && <StatusBadge value={query.data.agent.status} tone={AGENT_STATUS_TONE[query.data.agent.status]} />}
        <RefreshButton query={query} />
      </div>
      {query.isPending ? (
        <LoadingState label="Loading the agent" />
      ) : query.isError && query.data === undefined ? (
        query.error instanceof ApiError && query.error.code === 'NOT_FOUND' ? (
          <EmptyState title={`No agent “${agentId}”`}>
            <p>The loaded bundle declares no agent with this id.</p>
            <Link to="/agents">All agents</Link>
          </EmptyState>
        ) : (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        )
      ) : (
        <div className="page-grid">
          <section className="panel" aria-labelledby="agent-identity">
            <h2 id="agent-identity">Identity</h2>
            <dl className="kv">
              <dt>Type</dt>
              <dd>{query.data.agent.type}</dd>
              <dt>Role</dt>
              <dd>{query.data.agent.role}</dd>
              <dt>Model tier</dt>
              <dd>{query.data.agent.model_tier}</dd>
              <dt>Conversation mode</dt>
              <dd>{query.data.agent.conversation_mode}</dd>
              <dt>Session scope</dt>
              <dd>{query.data.agent.session_scope}</dd>
            </dl>
          </section>
          <section className="panel" aria-labelledby="agent-operation">
            <h2 id="agent-operation">Operation</h2>
            <dl className="kv">
              <dt>Status</dt>
              <dd>
                <StatusBadge value={query.data.agent.status} tone={AGENT_STATUS_TONE[query.data.agent.status]} />
              </dd>
              <dt>Current session</dt>
              <dd>
                {query.data.current_session_ref ? (
                  <>
                    <Link to={paths.session(query.data.current_session_ref.session_id)} className="mono" data-testid="current-session-link">
                      {query.data.current_session_ref.session_id}
                    </Link>{' '}
                    <span className="muted small">
                      started <RelativeTime iso={query.data.current_session_ref.started_at} />
                    </span>
                  </>
                ) : (
                  <span className="muted">none</span>
                )}
              </dd>
              <dt>Last turn</dt>
              <dd>
                {query.data.last_turn_ref ? (
                  <div className="last-turn">
                    <StatusBadge value={query.data.last_turn_ref.parse_ok ? 'parsed' : 'parse failed'} tone={query.data.last_turn_ref.parse_ok ? 'ok' : 'bad'} />{' '}
                    {query.data.current_session_ref ? (
                      <Link
                        to={`${paths.session(query.data.current_session_ref.session_id)}?turn=${encodeURIComponent(query.data.last_turn_ref.turn_id)}`}
                        className="mono"
                        data-testid="last-turn-link"
                      >
                        {query.data.last_turn_ref.turn_id}
                      </Link>
                    ) : (
                      <span className="mono">{query.data.last_turn_ref.turn_id}</span>
                    )}{' '}
                    <span className="muted small">
                      completed <RelativeTime iso={query.data.last_turn_ref.completed_at} />
                    </span>
                    {query.data.last_turn_ref.error && <p className="error-text">{query.data.last_turn_ref.error}</p>}
                  </div>
                ) : (
                  <span className="muted">no turns yet</span>
                )}
              </dd>
            </dl>
          </section>
          <RecentSessions agentId={agentId} />
        </div>
      )}
    </section>
  );
}

function RecentSessions({ agentId }: { agentId: string }) {
  const query = useConversations({ agent_id: agentId });
  const sessions = query.data?.pages.flatMap((p) => p.conversations) ?? [];
  return (
    <section className="panel panel-full" aria-labelledby="agent-sessions">
      <h2 id="agent-sessions">Sessions</h2>
      {query.isPending ? (
        <LoadingState label="Loading sessions" />
      ) : query.isError && query.data === undefined ? (
        <ErrorState compact error={query.error} onRetry={() => void query.refetch()} />
      ) : sessions.length === 0 ? (
        <EmptyState title="No sessions yet" />
      ) : (
        <>
          <ul className="card-list" aria-label="Sessions">
            {sessions.map((s) => (
              <li key={s.session_id} className="card session-card">
                <Link to={paths.session(s.session_id)} className="mono">
                  {s.session_id}
                </Link>
                <StatusBadge value={s.status} tone={s.status === 'failed' ? 'bad' : s.status === 'active' ? 'info' : 'neutral'} />
                <span className="muted small">
                  {s.turn_count} turn{s.turn_count === 1 ? '' : 's'} · started <RelativeTime iso={s.started_at} />
                </span>
              </li>
            ))}
          </ul>
          {query.hasNextPage && (
            <button type="button" className="btn btn-small" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
              {query.isFetchingNextPage ? 'Loading…' : 'Load more sessions'}
            </button>
          )}
        </>
      )}
    </section>
  );
}
