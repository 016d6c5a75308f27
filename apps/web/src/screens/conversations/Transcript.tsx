/**
 * One conversation as a readable transcript: session metadata, a latency strip across turns, and
 * the turns in order. Turns are virtualised (measured as they render), so conversations with
 * thousands of turns scroll smoothly. `?turn=<id>` scrolls to and marks one turn; `?failed=1`
 * shows only turns that failed.
 */
import { useEffect, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Turn } from '@switchboard/contract';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { useConversation } from '../../api/conversations';
import { paths } from '../../paths';
import { CopyId } from '../../ui/CopyId';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { useUrlState } from '../../url-state';
import { SESSION_TONE } from './ConversationList';
import { LatencyStrip } from './LatencyStrip';
import { TurnCard } from './TurnCard';
import { RefreshButton } from '../../ui/RefreshButton';
import { UrlCheckbox } from '../../ui/UrlCheckbox';
import './Transcript.css';

export function Transcript({ sessionId }: { sessionId: string }) {
  const query = useConversation(sessionId);
  const [params, update] = useUrlState();
  const failedOnly = params.get('failed') === '1';
  const highlightId = params.get('turn') ?? undefined;
  const allTurns = useMemo(() => [...(query.data?.turns ?? [])].sort((a, b) => a.turn_index - b.turn_index), [query.data]);
  const turns = useMemo(() => (failedOnly ? allTurns.filter((t) => !t.parse_ok) : allTurns), [allTurns, failedOnly]);
  const failedCount = allTurns.filter((t) => !t.parse_ok).length;
  const c = query.data?.conversation;

  return (
    <section className="screen" aria-labelledby="transcript-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/conversations">Conversations</Link> <span aria-hidden="true">/</span> <span className="mono">{sessionId}</span>
      </nav>
      <div className="screen-header">
        <h1 id="transcript-title">Conversation</h1>
        <CopyId id={sessionId} what="session id" />
        {c && <StatusBadge value={c.status} tone={SESSION_TONE[c.status]} />}
        <RefreshButton query={query} />
      </div>
      {query.isPending ? (
        <LoadingState label="Loading the transcript" />
      ) : query.isError && query.data === undefined ? (
        query.error instanceof ApiError && query.error.code === 'NOT_FOUND' ? (
          <EmptyState title="No conversation with this id">
            <p>It may have been removed by a runtime reset.</p>
            <Link to="/conversations">All conversations</Link>
          </EmptyState>
        ) : (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        )
      ) : (
        <>
          <dl className="summary-card session-meta" aria-label="Session">
            <div>
              <dt>Agent</dt>
              <dd>
                <Link to={paths.agent(c!.agent_id)}>{c!.agent_id}</Link>
              </dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>
                <RelativeTime iso={c!.started_at} />
              </dd>
            </div>
            {c!.ended_at && (
              <div>
                <dt>Ended</dt>
                <dd>
                  <RelativeTime iso={c!.ended_at} />
                </dd>
              </div>
            )}
            <div>
              <dt>Turns</dt>
              <dd>{c!.turn_count}</dd>
            </div>
            <div>
              <dt>Messages</dt>
              <dd>{c!.message_count}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd className={failedCount ? 'bad' : undefined}>{failedCount}</dd>
            </div>
            {c!.run_id && (
              <div>
                <dt>Run</dt>
                <dd>
                  <Link to={paths.run(c!.run_id)} className="mono">
                    {c!.run_id}
                  </Link>
                </dd>
              </div>
            )}
          </dl>
          <TurnList
            key={failedOnly ? 'failed' : 'all'}
            turns={turns}
            allCount={allTurns.length}
            failedOnly={failedOnly}
            failedCount={failedCount}
            highlightId={highlightId}
            onFailedOnly={(v) => update({ failed: v })}
            onHighlight={(id) => update({ turn: id })}
          />
        </>
      )}
    </section>
  );
}

function TurnList({
  turns,
  allCount,
  failedOnly,
  failedCount,
  highlightId,
  onFailedOnly,
  onHighlight,
}: {
  turns: Turn[];
  allCount: number;
  failedOnly: boolean;
  failedCount: number;
  highlightId: string | undefined;
  onFailedOnly: (v: boolean) => void;
  onHighlight: (turnId: string) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: turns.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 260,
    overscan: 4,
    getItemKey: (i) => turns[i]!.turn_id,
  });
  const highlightIndex = turns.findIndex((t) => t.turn_id === highlightId);

  // Scroll to the turn named in the URL once, when the list first renders.
  const scrolledFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (highlightIndex >= 0 && scrolledFor.current !== highlightId) {
      scrolledFor.current = highlightId;
      virtualizer.scrollToIndex(highlightIndex, { align: 'start' });
    }
  }, [highlightIndex, highlightId, virtualizer]);

  const jump = (index: number) => {
    const t = turns[index];
    if (!t) return;
    scrolledFor.current = t.turn_id;
    onHighlight(t.turn_id);
    virtualizer.scrollToIndex(index, { align: 'start' });
  };

  return (
    <div className="transcript">
      <LatencyStrip turns={turns} onPick={jump} highlighted={highlightIndex >= 0 ? highlightIndex : undefined} />
      <div className="transcript-tools">
        <div className="field-inline">
          <UrlCheckbox id="failed-only" checked={failedOnly} onCheckedChange={onFailedOnly} />
          <label htmlFor="failed-only">Only failed turns ({failedCount})</label>
        </div>
        <span className="muted small" aria-live="polite">
          Showing {turns.length} of {allCount} turns
        </span>
      </div>
      {turns.length === 0 ? (
        <EmptyState title={failedOnly ? 'No failed turns in this conversation' : 'No turns yet'} />
      ) : (
        <div className="transcript-scroll" ref={scrollRef} data-testid="transcript-scroll">
          <div className="transcript-inner" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((v) => {
              const t = turns[v.index]!;
              return (
                <div key={v.key} data-index={v.index} ref={virtualizer.measureElement} className="turn-slot" style={{ transform: `translateY(${v.start}px)` }}>
                  <TurnCard turn={t} highlighted={t.turn_id === highlightId} />
                </div>
              );
            })}
          </div>
        </div>
      )}
    </div>
  );
}
