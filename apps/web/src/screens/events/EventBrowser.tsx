/**
 * Event and dead-letter browser over event.list. Filters, time range and selection live in the URL.
 * Loaded rows never move by themselves: with live tail on, new events are counted in a bar and
 * only shown when the operator asks.
 */
import { useCallback, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { StoredEvent } from '@switchboard/contract';
import { eventsQuery, useCatalog, useEvents, useNewEventCount, type EventQuery } from '../../api/events';
import { useRun } from '../../api/runs';
import { paths } from '../../paths';
import { CopyId } from '../../ui/CopyId';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { UrlCheckbox } from '../../ui/UrlCheckbox';
import { onlyKeys, useUrlState } from '../../url-state';
import { RecoveryDialog } from '../operations/RecoveryDialog';
import type { RecoverySelection } from '../../api/operations';
import { EventDetail } from './EventDetail';
import { RunTree } from './RunTree';
import { EventFilters } from './EventFilters';
import { EventTable, type EventTableHandle } from './EventTable';
import { FILTER_KEYS, eventQueryFromUrl, rangeOf, type Mode } from './event-query';
import { GuardedButton } from '../../ui/GuardedButton';
import { TraceId } from '../../ui/TraceId';
import { ExportMenu } from '../../ui/ExportMenu';
import './EventBrowser.css';

export function EventBrowser({ mode }: { mode: Mode }) {
  const [params, update] = useUrlState();
  const queryClient = useQueryClient();
  const [anchor, setAnchor] = useState(() => Date.now());
  const tableRef = useRef<EventTableHandle>(null);

  // The query depends on filters and range only, not on selection: selecting a row must not refetch.
  const filterQuery = onlyKeys(params, [...FILTER_KEYS, 'dead', 'redriven', 'range', 'since', 'until']);
  const query = useMemo(() => eventQueryFromUrl(new URLSearchParams(filterQuery), mode, anchor), [filterQuery, mode, anchor]);
  const events = useEvents(query);
  const rows = useMemo(() => events.data?.pages.flatMap((p) => p.events) ?? [], [events.data]);
  const nextPageError = events.isFetchNextPageError ? events.error : null;
  const payloadSearch = events.data?.pages[0]?.payload_search;

  const live = params.get('live') === '1';
  const newest = useMemo(() => (rows[0] ? { created_at: rows[0].created_at, ids: new Set(rows.map((r) => r.event_id)) } : undefined), [rows]);
  const canTail = !query.until;
  const fresh = useNewEventCount(query, newest, live && canTail && events.isSuccess);

  const showNew = async () => {
    tableRef.current?.scrollToTop();
    if (rangeOf(params) === '' || rangeOf(params) === 'custom') await queryClient.resetQueries({ queryKey: eventsQuery(query).queryKey });
    else setAnchor(Date.now());
  };

  const refresh = () => {
    if (rangeOf(params) !== '' && rangeOf(params) !== 'custom') setAnchor(Date.now());
    else void queryClient.resetQueries({ queryKey: eventsQuery(query).queryKey });
  };

  // Rows checked for a bulk action; a change of filters starts a new selection.
  const [picked, setPicked] = useState<{ filters: string; ids: ReadonlySet<string> }>({ filters: filterQuery, ids: new Set() });
  const pickedIds = picked.filters === filterQuery ? picked.ids : EMPTY;
  const onPick = useCallback(
    (id: string, on: boolean) =>
      setPicked((p) => {
        const ids = new Set(p.filters === filterQuery ? p.ids : []);
        if (on) ids.add(id);
        else ids.delete(id);
        return { filters: filterQuery, ids };
      }),
    [filterQuery],
  );
  const [recoveryOpen, setRecoveryOpen] = useState(false);
  const kind = mode === 'dead-letters' ? 'redrive' : 'replay';
  const recovery = useMemo(() => recoveryScope(kind, query, rows, pickedIds), [kind, query, rows, pickedIds]);

  const runView = query.filter?.run_id && params.get('view') === 'tree' ? 'tree' : 'list';
  const selectedId = params.get('selected') ?? undefined;
  const selected = rows.find((r) => r.event_id === selectedId);
  const hasFilters = Boolean(query.filter && Object.keys(query.filter).some((k) => !(mode === 'dead-letters' && k === 'has_dead_letter'))) || Boolean(query.since || query.until);
  const title = mode === 'dead-letters' ? 'Dead letters' : 'Events';
  const [one, many] = mode === 'dead-letters' ? ['event with dead letters', 'events with dead letters'] : ['event', 'events'];

  return (
    <section className="screen" aria-labelledby="events-title">
      <div className="screen-header">
        <h1 id="events-title">{title}</h1>
        {events.isSuccess && (
          <span className="count" aria-live="polite" data-testid="loaded-count">
            {rows.length.toLocaleString()} {rows.length === 1 ? one : many} loaded{events.hasNextPage ? ', more available' : ''}
          </span>
        )}
        <div className="field-inline">
          <UrlCheckbox id="live-tail" checked={live} disabled={!canTail} onCheckedChange={(on) => update({ live: on })} />
          <label htmlFor="live-tail" title={canTail ? undefined : 'Live tail needs an open-ended time range'}>
            Live tail
          </label>
        </div>
        <button type="button" className="btn btn-small" onClick={refresh} disabled={events.isFetching}>
          Refresh
        </button>
        <ExportMenu list={mode} params={query} />
        <GuardedButton
          action={kind === 'redrive' ? 'event.redrive' : 'event.replay'}
          className="btn btn-small btn-primary"
          onClick={() => setRecoveryOpen(true)}
          disabled={!events.isSuccess || rows.length === 0}
          data-testid="open-recovery"
        >
          {pickedIds.size > 0 ? `${kind === 'redrive' ? 'Redrive' : 'Replay'} ${pickedIds.size} selected…` : kind === 'redrive' ? 'Redrive all matching…' : 'Replay all matching…'}
        </GuardedButton>
        {pickedIds.size > 0 && (
          <button type="button" className="btn btn-small btn-quiet" onClick={() => setPicked({ filters: filterQuery, ids: new Set() })}>
            Clear selection
          </button>
        )}
      </div>
      <EventFilters mode={mode} params={params} update={update} />
      {payloadSearch && !payloadSearch.indexed && <UnindexedSearchHint scanned={events.data?.pages.find((p) => p.payload_search?.scanned_events)?.payload_search?.scanned_events} />}
      {query.filter?.run_id && <RunSummary runId={query.filter.run_id} view={runView} onView={(v) => update({ view: v === 'tree' ? 'tree' : null })} />}
      <div className={`split${selectedId ? ' has-detail' : ''}`}>
        <div className="split-main">
          {live && fresh.data && fresh.data.count > 0 && (
            <div className="new-events-bar" role="status">
              <button type="button" className="btn btn-small" onClick={() => void showNew()} data-testid="new-events">
                {fresh.data.count.toLocaleString()}
                {fresh.data.more ? '+' : ''} new event{fresh.data.count === 1 ? '' : 's'} — show
              </button>
            </div>
          )}
          {runView === 'tree' && query.filter?.run_id ? (
            <RunTree runId={query.filter.run_id} />
          ) : events.isPending ? (
            <LoadingState label={`Loading ${title.toLowerCase()}`} />
          ) : events.isError && events.data === undefined ? (
            <ErrorState error={events.error} onRetry={() => void events.refetch()} />
          ) : rows.length === 0 && events.hasNextPage ? (
            <EmptyState title={`No ${many} match yet`}>
              <p>The search has looked at part of the events so far; more may match further back.</p>
              <button type="button" className="btn" onClick={() => void events.fetchNextPage()} disabled={events.isFetchingNextPage} data-testid="search-further">
                {events.isFetchingNextPage ? 'Searching…' : 'Search further back'}
              </button>
            </EmptyState>
          ) : rows.length === 0 ? (
            <EmptyState title={hasFilters ? `No ${many} match these filters` : mode === 'dead-letters' ? 'No dead letters' : 'No events yet'}>
              {hasFilters ? (
                <Link className="btn" to={mode === 'dead-letters' ? '/dead-letters' : '/events'}>
                  Clear filters
                </Link>
              ) : (
                <p>{mode === 'dead-letters' ? 'Every delivery has succeeded or is still being retried.' : 'Events appear here once the runtime receives them.'}</p>
              )}
            </EmptyState>
          ) : (
            <EventTable
              ref={tableRef}
              mode={mode}
              rows={rows}
              params={params}
              selectedId={selectedId}
              onSelect={(id) => update({ selected: id, dead_letter: null, delivery: null }, { push: true })}
              hasNextPage={Boolean(events.hasNextPage)}
              isFetchingNextPage={events.isFetchingNextPage}
              fetchNextPage={() => void events.fetchNextPage()}
              nextPageError={nextPageError}
              picked={pickedIds}
              onPick={onPick}
            />
          )}
        </div>
        {selectedId && (
          <EventDetail
            eventId={selectedId}
            loaded={selected}
            highlightDeadLetter={params.get('dead_letter') ?? undefined}
            highlightDelivery={params.get('delivery') ?? undefined}
            onClose={() => update({ selected: null, dead_letter: null, delivery: null }, { push: true })}
          />
        )}
      </div>
      {recoveryOpen && <RecoveryDialog kind={kind} selection={recovery.selection} scope={recovery.scope} open={recoveryOpen} onOpenChange={setRecoveryOpen} />}
    </section>
  );
}

/** Says that the payload search has no index, what that costs, and which fields have one. */
function UnindexedSearchHint({ scanned }: { scanned: number | undefined }) {
  const catalog = useCatalog();
  const indexed = [...new Set((catalog.data?.events ?? []).flatMap((e) => e.indexed_payload_fields ?? []))];
  return (
    <p className="callout callout-info payload-search-hint" role="note" data-testid="payload-search-hint">
      No index serves this payload search, so each page looks at {scanned ? `up to ${scanned.toLocaleString()}` : 'a bounded number of'} events, newest first, and may come back short: scroll or load more to search further back.
      {indexed.length > 0 ? ` Indexed fields (fast with = or in): ${indexed.map((f) => `payload.${f}`).join(', ')}.` : ' A bundle can declare indexed_payload_fields to index a field.'}
    </p>
  );
}

const EMPTY: ReadonlySet<string> = new Set();
/** event.redrive and event.replay take at most this many explicit ids. */
const MAX_IDS_PER_CALL = 1000;

/**
 * What a bulk action acts on: the checked rows (their dead letters not yet redriven, or the
 * events), or everything the current filters match.
 */
function recoveryScope(kind: 'redrive' | 'replay', query: EventQuery, rows: StoredEvent[], picked: ReadonlySet<string>): { selection: RecoverySelection; scope: string } {
  if (picked.size === 0) {
    const { filter, since, until } = query;
    return { selection: { ...(filter ? { filter } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}) }, scope: 'all matching these filters' };
  }
  const chosen = rows.filter((r) => picked.has(r.event_id));
  if (kind === 'replay') return { selection: { event_ids: chosen.map((r) => r.event_id) }, scope: `${chosen.length} selected event${chosen.length === 1 ? '' : 's'}` };
  // Every dead letter of the checked events: the estimate counts the already redriven ones apart.
  const ids = chosen.flatMap((r) => r.dead_letters.map((l) => l.dead_letter_id)).slice(0, MAX_IDS_PER_CALL);
  return { selection: { dead_letter_ids: ids }, scope: `the dead letters of ${chosen.length} selected event${chosen.length === 1 ? '' : 's'}` };
}

function RunSummary({ runId, view, onView }: { runId: string; view: 'tree' | 'list'; onView: (view: 'tree' | 'list') => void }) {
  const run = useRun(runId);
  if (run.isPending) return <div className="summary-card muted">Loading run {runId}…</div>;
  if (run.isError && run.data === undefined) return <ErrorState compact error={run.error} />;
  const r = run.data.run;
  return (
    <div className="summary-card" aria-label="Run summary" role="group">
      <strong>Run</strong>
      <CopyId id={r.run_id} what="run id" />
      <StatusBadge value={r.status} />
      <span>
        root <Link to={paths.event(r.root_event_id)}>{r.event_name}</Link>
      </span>
      <span>
        started <RelativeTime iso={r.created_at} />
      </span>
      {r.settled_at && (
        <span>
          settled <RelativeTime iso={r.settled_at} />
        </span>
      )}
      <span>
        {r.event_count} event{r.event_count === 1 ? '' : 's'}
      </span>
      <span className={r.dead_letter_count ? 'bad' : undefined}>{r.dead_letter_count} dead letter{r.dead_letter_count === 1 ? '' : 's'}</span>
      {r.trace_id && (
        <span>
          trace <TraceId traceId={r.trace_id} />
        </span>
      )}
      {r.entity_id && (
        <span>
          entity <Link to={paths.entity(r.entity_id)}>{r.entity_id}</Link>
        </span>
      )}
      <span className="run-view-toggle" role="group" aria-label="Run view">
        <button type="button" className={`btn btn-small${view === 'list' ? ' btn-primary' : ''}`} aria-pressed={view === 'list'} onClick={() => onView('list')}>
          List
        </button>
        <button type="button" className={`btn btn-small${view === 'tree' ? ' btn-primary' : ''}`} aria-pressed={view === 'tree'} onClick={() => onView('tree')} data-testid="run-tree-toggle">
          Tree
        </button>
      </span>
    </div>
  );
}
