/**
 * Incident triage: what is failing, where, how often, since when. Filters, sort and the selected
 * incident live in the URL. Keys: j/k move between rows, Enter opens one, a/e acknowledge or
 * resolve the open one (IncidentStatePanel), Escape closes it and focus returns to its row.
 */
import { useEffect, useRef } from 'react';
import type { Incident } from '@switchboard/contract';
import { useIncidents, type IncidentFilters as Filters } from '../../api/incidents';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { useUrlState } from '../../url-state';
import { IncidentDetail } from './IncidentDetail';
import { IncidentFilters, WINDOW_CHOICES } from './IncidentFilters';
import { IncidentTable } from './IncidentTable';
import { STATE_CHOICES, sortChoice, stateChoice } from './incident-state';
import { RefreshButton } from '../../ui/RefreshButton';
import { ExportMenu } from '../../ui/ExportMenu';

export const HISTOGRAM_BUCKETS = 24;

export default function IncidentsScreen() {
  const [params, update] = useUrlState();
  const windowParam = Number(params.get('window'));
  const windowHours = WINDOW_CHOICES.some((c) => c.hours === windowParam) ? windowParam : 24;
  const sort = sortChoice(params.get('sort'));
  const state = stateChoice(params.get('state'));
  const filters: Filters = {
    since_hours: windowHours,
    sort,
    ...(state.states ? { states: state.states } : {}),
    histogram_buckets: HISTOGRAM_BUCKETS,
    ...(params.get('component') ? { component: params.get('component')! } : {}),
    ...(params.get('mcp') === '1' ? { mcp_only: true } : {}),
  };
  const query = useIncidents(filters);
  const incidents = query.data?.pages.flatMap((p) => p.incidents) ?? [];
  const nextPageError = query.isFetchNextPageError ? query.error : null;
  const selectedId = params.get('selected') ?? undefined;
  const selected = incidents.find((i) => i.incident_id === selectedId);
  // The summary stays after a state change takes the incident out of the list (resolved, ignored).
  const lastSelected = useRef<Incident | undefined>(undefined);
  if (selected) lastSelected.current = selected;
  const summary = selected ?? (lastSelected.current?.incident_id === selectedId ? lastSelected.current : undefined);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey || isTypingTarget(e.target) || document.querySelector('[role="dialog"]')) return;
      if (e.key !== 'j' && e.key !== 'k') return;
      const links = [...document.querySelectorAll<HTMLAnchorElement>('[data-incident-id] a.row-link')];
      if (links.length === 0) return;
      const focused = links.findIndex((a) => a === document.activeElement);
      const selectedIndex = links.findIndex((a) => a.closest('tr')?.getAttribute('aria-selected') === 'true');
      const from = focused >= 0 ? focused : selectedIndex;
      const next = from < 0 ? 0 : Math.min(links.length - 1, Math.max(0, from + (e.key === 'j' ? 1 : -1)));
      links[next]!.focus();
      links[next]!.scrollIntoView({ block: 'nearest' });
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const close = () => {
    const id = selectedId;
    update({ selected: null }, { push: true });
    // Back to the row the panel was opened from, once the panel is gone.
    setTimeout(() => {
      if (id) document.querySelector<HTMLElement>(`[data-incident-id="${CSS.escape(id)}"] a.row-link`)?.focus();
    }, 0);
  };
  const filtered = Boolean(filters.component || filters.mcp_only || state.value !== STATE_CHOICES[0]!.value);

  return (
    <section className="screen" aria-labelledby="incidents-title">
      <div className="screen-header">
        <h1 id="incidents-title">Incidents</h1>
        {query.isSuccess && (
          <span className="count" aria-live="polite">
            {incidents.length}
            {query.hasNextPage ? '+' : ''} {state.value === 'all' ? '' : state.value === 'active' ? 'open or acknowledged ' : `${state.value} `}incident{incidents.length === 1 ? '' : 's'} in the last {windowHours} h
          </span>
        )}
        <RefreshButton query={query} />
        <ExportMenu list="incidents" params={filters} />
      </div>
      <IncidentFilters windowHours={windowHours} component={filters.component ?? ''} mcpOnly={Boolean(filters.mcp_only)} state={state.value} sort={sort} update={update} />
      <div className={`split${selectedId ? ' has-detail' : ''}`}>
        <div className="split-main">
          {query.isPending ? (
            <LoadingState label="Loading incidents" />
          ) : query.isError && query.data === undefined ? (
            <ErrorState error={query.error} onRetry={() => void query.refetch()} />
          ) : incidents.length === 0 ? (
            <EmptyState title={filtered ? 'No incidents match these filters' : `No open or acknowledged incidents in the last ${windowHours} h`}>
              {filtered ? (
                <button type="button" className="btn" onClick={() => update({ component: null, mcp: null, state: null })}>
                  Clear filters
                </button>
              ) : (
                <p>
                  Nothing open or acknowledged has logged a warning or error in this window.{' '}
                  <button type="button" className="btn btn-small btn-quiet" onClick={() => update({ state: 'all' })}>
                    Show all states
                  </button>
                </p>
              )}
            </EmptyState>
          ) : (
            <>
              <IncidentTable
                incidents={incidents}
                selectedId={selectedId}
                sort={sort}
                windowHours={windowHours}
                params={params}
                onSelect={(id) => update({ selected: id }, { push: true })}
                onSort={(s) => update({ sort: s === 'severity' ? null : s })}
              />
              <div className="table-footer">
                {nextPageError && <ErrorState compact error={nextPageError} />}
                {query.hasNextPage ? (
                  <button type="button" className="btn" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                    {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
                  </button>
                ) : (
                  <span>All {incidents.length} incidents loaded</span>
                )}
              </div>
            </>
          )}
        </div>
        {selectedId && (
          <IncidentDetail incidentId={selectedId} incident={selected} summary={summary} windowHours={windowHours} onClose={close} />
        )}
      </div>
    </section>
  );
}

/** Single-key shortcuts must not fire while the operator types. */
function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)));
}
