/** Conversations (agent sessions), newest first, filtered by agent and status from the URL. */
import { useId } from 'react';
import type { Conversation } from '@switchboard/contract';
import { Link } from 'react-router';
import { useAgents } from '../../api/agents';
import { useConversations, type ConversationFilter } from '../../api/conversations';
import { paths } from '../../paths';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { MiddleEllipsis } from '../../ui/MiddleEllipsis';
import { StatusBadge } from '../../ui/StatusBadge';
import { useUrlState } from '../../url-state';
import { RefreshButton } from '../../ui/RefreshButton';

const STATUSES: Conversation['status'][] = ['active', 'ended', 'failed'];
export const SESSION_TONE: Record<Conversation['status'], 'info' | 'neutral' | 'bad'> = { active: 'info', ended: 'neutral', failed: 'bad' };

export function ConversationList() {
  const [params, update] = useUrlState();
  const ids = { agent: useId(), status: useId() };
  const filter: ConversationFilter = {};
  const agentId = params.get('agent_id') ?? '';
  const status = params.get('status') ?? '';
  if (agentId) filter.agent_id = agentId;
  if ((STATUSES as string[]).includes(status)) filter.status = status as Conversation['status'];
  const query = useConversations(filter);
  const agents = useAgents();
  const rows = query.data?.pages.flatMap((p) => p.conversations) ?? [];
  const filtered = Object.keys(filter).length > 0;

  return (
    <section className="screen" aria-labelledby="conversations-title">
      <div className="screen-header">
        <h1 id="conversations-title">Conversations</h1>
        {query.isSuccess && (
          <span className="count">
            {rows.length}
            {query.hasNextPage ? '+' : ''} session{rows.length === 1 ? '' : 's'}
          </span>
        )}
        <RefreshButton query={query} />
      </div>
      <form className="filters" role="search" aria-label="Conversation filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor={ids.agent}>Agent</label>
          <select id={ids.agent} value={agentId} onChange={(e) => update({ agent_id: e.target.value })}>
            <option value="">Any agent</option>
            {(agents.data?.pages.flatMap((p) => p.agents) ?? []).map((a) => (
              <option key={a.agent_id} value={a.agent_id}>
                {a.agent_id}
              </option>
            ))}
            {agentId && !agents.data?.pages.some((p) => p.agents.some((a) => a.agent_id === agentId)) && <option value={agentId}>{agentId}</option>}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.status}>Status</label>
          <select id={ids.status} value={status} onChange={(e) => update({ status: e.target.value })}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </form>
      <div className="split-main">
        {query.isPending ? (
          <LoadingState label="Loading conversations" />
        ) : query.isError && query.data === undefined ? (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title={filtered ? 'No conversations match these filters' : 'No conversations yet'}>
            {filtered ? (
              <button type="button" className="btn" onClick={() => update({ agent_id: null, status: null })}>
                Clear filters
              </button>
            ) : (
              <p>A conversation starts when an agent handles its first event.</p>
            )}
          </EmptyState>
        ) : (
          <>
            <div className="table-scroll">
              <table className="data" aria-label="Conversations">
                <colgroup>
                  <col />
                  <col style={{ width: '20%' }} />
                  <col style={{ width: 80 }} />
                  <col className="hide-narrow" style={{ width: 70 }} />
                  <col className="hide-narrow" style={{ width: 120 }} />
                  <col className="hide-narrow" style={{ width: '22%' }} />
                </colgroup>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="hide-narrow num">
                      Turns
                    </th>
                    <th scope="col" className="hide-narrow">
                      Started
                    </th>
                    <th scope="col" className="hide-narrow">
                      Run
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((c) => (
                    <tr key={c.session_id} data-testid="conversation-row">
                      <td>
                        <Link className="row-link mid-ellipsis-link" to={paths.session(c.session_id)}>
                          <MiddleEllipsis text={c.session_id} />
                        </Link>
                      </td>
                      <td title={c.agent_id}>
                        <Link to={paths.agent(c.agent_id)}>{c.agent_id}</Link>
                      </td>
                      <td>
                        <StatusBadge value={c.status} tone={SESSION_TONE[c.status]} />
                      </td>
                      <td className="hide-narrow num">{c.turn_count}</td>
                      <td className="hide-narrow">
                        <RelativeTime iso={c.started_at} />
                      </td>
                      <td className="hide-narrow mono">
                        {c.run_id ? (
                          <Link to={paths.run(c.run_id)} className="mid-ellipsis-link">
                            <MiddleEllipsis text={c.run_id} />
                          </Link>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="table-footer">
              {query.hasNextPage ? (
                <button type="button" className="btn" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                  {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
                </button>
              ) : (
                <span>All {rows.length} sessions loaded</span>
              )}
            </div>
          </>
        )}
      </div>
    </section>
  );
}
