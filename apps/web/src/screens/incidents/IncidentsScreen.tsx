/**
 * Incident triage: what is failing, where, how often, since when. Filters, sort and the selected
 * incident live in the URL.
 */
import { useIncidents, type IncidentFilters as Filters } from '../../api/incidents';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { useUrlState } from '../../url-state';
import { IncidentDetail } from './IncidentDetail';
import { IncidentFilters, WINDOW_CHOICES } from './IncidentFilters';
import { IncidentTable } from './IncidentTable';
import { sortChoice, stateChoice } from './incident-state';
import { RefreshButton } from '../../ui/RefreshButton';

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
  const filtered = Boolean(filters.component || filters.mcp_only || state.value !== 'open');

  return (
    <section className="screen" aria-labelledby="incidents-title">
      <div className="screen-header">
        <h1 id="incidents-title">Incidents</h1>
        {query.isSuccess && (
          <span className="count" aria-live="polite">
            {incidents.length}
            {query.hasNextPage ? '+' : ''} {state.value === 'all' ? '' : `${state.value} `}incident{incidents.length === 1 ? '' : 's'} in the last {windowHours} h
          </span>
        )}
        <RefreshButton query={query} />
      </div>
      <IncidentFilters windowHours={windowHours} component={filters.component ?? ''} mcpOnly={Boolean(filters.mcp_only)} state={state.value} sort={sort} update={update} />
      <div className={`split${selectedId ? ' has-detail' : ''}`}>
        <div className="split-main">
          {query.isPending ? (
            <LoadingState label="Loading incidents" />
          ) : query.isError && query.data === undefined ? (
            <ErrorState error={query.error} onRetry={() => void query.refetch()} />
          ) : incidents.length === 0 ? (
            <EmptyState title={filtered ? 'No incidents match these filters' : `No open incidents in the last ${windowHours} h`}>
              {filtered ? (
                <button type="button" className="btn" onClick={() => update({ component: null, mcp: null, state: null })}>
                  Clear filters
                </button>
              ) : (
                <p>
                  Nothing open has logged a warning or error in this window.{' '}
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
          <IncidentDetail incidentId={selectedId} incident={selected} windowHours={windowHours} onClose={() => update({ selected: null }, { push: true })} />
        )}
      </div>
    </section>
  );
}
