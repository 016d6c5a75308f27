/**
 * The events table, virtualised: only the rows in view (plus a margin) are in the DOM, so thousands
 * of loaded rows scroll smoothly. Scrolling near the end loads the next page. Arrow keys move
 * between rows; Enter opens one.
 */
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { StoredEvent } from '@switchboard/contract';
import { Link } from 'react-router';
import { ErrorState } from '../../ui/ErrorState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { withParams } from '../../url-state';
import type { Mode } from './event-query';

export interface EventTableHandle {
  scrollToTop: () => void;
}

const ROW_HEIGHT = 36;
/** Start loading the next page when this many rows remain below the view. */
const PREFETCH_ROWS = 60;

export function EventTable({
  ref,
  mode,
  rows,
  params,
  selectedId,
  onSelect,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
  nextPageError,
}: {
  ref?: Ref<EventTableHandle>;
  mode: Mode;
  rows: StoredEvent[];
  params: URLSearchParams;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => void;
  nextPageError: unknown;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  useImperativeHandle(ref, () => ({ scrollToTop: () => virtualizer.scrollToOffset(0) }), [virtualizer]);

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !nextPageError && lastIndex >= rows.length - PREFETCH_ROWS) fetchNextPage();
  }, [lastIndex, rows.length, hasNextPage, isFetchingNextPage, nextPageError, fetchNextPage]);

  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const deadMode = mode === 'dead-letters';
  const columns = deadMode ? 7 : 8;

  const focusRow = (index: number) => {
    if (index < 0 || index >= rows.length) return;
    virtualizer.scrollToIndex(index, { align: 'auto' });
    requestAnimationFrame(() => {
      scrollRef.current?.querySelector<HTMLElement>(`tr[data-index="${index}"] a`)?.focus({ preventScroll: true });
    });
  };

  return (
    <>
      <div
        className="table-scroll"
        ref={scrollRef}
        data-testid="event-table-scroll"
        onKeyDown={(e) => {
          const row = (e.target as HTMLElement).closest('tr[data-index]');
          if (!row) return;
          const index = Number(row.getAttribute('data-index'));
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            focusRow(index + 1);
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            focusRow(index - 1);
          }
        }}
      >
        <table className="data" aria-label={deadMode ? 'Events with dead letters' : 'Events'} aria-rowcount={rows.length + 1}>
          <colgroup>
            <col style={{ width: 104 }} />
            <col />
            <col className="hide-narrow" style={{ width: '17%' }} />
            {deadMode ? (
              <>
                <col style={{ width: 150 }} />
                <col className="hide-narrow" style={{ width: '15%' }} />
                <col className="hide-narrow" style={{ width: 70 }} />
              </>
            ) : (
              <>
                <col className="hide-narrow" style={{ width: '11%' }} />
                <col className="hide-narrow" style={{ width: '14%' }} />
                <col className="hide-narrow" style={{ width: '14%' }} />
                <col className="hide-narrow" style={{ width: 150 }} />
              </>
            )}
            <col style={{ width: 64 }} />
          </colgroup>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col" className="hide-narrow">
                Event id
              </th>
              {deadMode ? (
                <>
                  <th scope="col">Failure</th>
                  <th scope="col" className="hide-narrow">
                    Handler
                  </th>
                  <th scope="col" className="hide-narrow num">
                    Retries
                  </th>
                </>
              ) : (
                <>
                  <th scope="col" className="hide-narrow">
                    Source
                  </th>
                  <th scope="col" className="hide-narrow">
                    Run
                  </th>
                  <th scope="col" className="hide-narrow">
                    Entity
                  </th>
                  <th scope="col" className="hide-narrow">
                    Deliveries
                  </th>
                </>
              )}
              <th scope="col" className="num" title="Dead letters">
                <span aria-hidden="true">DL</span>
                <span className="visually-hidden">Dead letters</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {paddingTop > 0 && (
              <tr className="spacer" aria-hidden="true">
                <td colSpan={columns} style={{ height: paddingTop }} />
              </tr>
            )}
            {items.map((item) => {
              const e = rows[item.index]!;
              const dl = e.dead_letters[0];
              return (
                <tr
                  key={e.event_id}
                  data-index={item.index}
                  aria-rowindex={item.index + 2}
                  aria-selected={e.event_id === selectedId}
                  onClick={() => onSelect(e.event_id)}
                  data-testid="event-row"
                >
                  <td>
                    <RelativeTime iso={e.created_at} />
                  </td>
                  <td title={e.event_name}>
                    <Link className="row-link" to={withParams(params, { selected: e.event_id, dead_letter: null })} onClick={(ev) => ev.stopPropagation()}>
                      {e.event_name}
                    </Link>
                  </td>
                  <td className="hide-narrow mono" title={e.event_id}>
                    {e.event_id}
                  </td>
                  {deadMode ? (
                    <>
                      <td>{dl ? <StatusBadge value={dl.failure_type} tone="bad" /> : '—'}</td>
                      <td className="hide-narrow mono" title={dl?.handler_node}>
                        {dl?.handler_node ?? '—'}
                      </td>
                      <td className="hide-narrow num">{dl?.retry_count ?? '—'}</td>
                    </>
                  ) : (
                    <>
                      <td className="hide-narrow" title={e.source}>
                        {e.source}
                      </td>
                      <td className="hide-narrow mono" title={e.run_id}>
                        {e.run_id ?? '—'}
                      </td>
                      <td className="hide-narrow mono" title={e.entity_id}>
                        {e.entity_id ?? '—'}
                      </td>
                      <td className="hide-narrow">{deliverySummary(e)}</td>
                    </>
                  )}
                  <td className={`num${e.dead_letters.length ? ' bad' : ''}`}>{e.dead_letters.length || ''}</td>
                </tr>
              );
            })}
            {paddingBottom > 0 && (
              <tr className="spacer" aria-hidden="true">
                <td colSpan={columns} style={{ height: paddingBottom }} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div className="table-footer">
        {nextPageError ? (
          <ErrorState compact error={nextPageError} onRetry={fetchNextPage} />
        ) : hasNextPage ? (
          <button type="button" className="btn btn-small" onClick={fetchNextPage} disabled={isFetchingNextPage}>
            {isFetchingNextPage ? 'Loading more…' : 'Load more'}
          </button>
        ) : (
          <span>End of list</span>
        )}
      </div>
    </>
  );
}

function deliverySummary(e: StoredEvent): string {
  if (e.deliveries.length === 0) return 'no subscribers';
  const counts = new Map<string, number>();
  for (const d of e.deliveries) counts.set(d.status, (counts.get(d.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status.replace('_', ' ')}`).join(' · ');
}
