/**
 * The events table, virtualised: only the rows in view (plus a margin) are in the DOM, so thousands
 * of loaded rows scroll smoothly. Rows are memoised and read the clock from the table, so a scroll
 * frame renders only the rows that came into view. Clicks are handled once, on the body.
 * Scrolling near the end loads the next page. Arrow keys move between rows; Enter opens one.
 */
import { memo, useEffect, useImperativeHandle, useMemo, useRef, type MouseEvent, type Ref } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { StoredEvent } from '@switchboard/contract';
import { Link } from 'react-router';
import { paths } from '../../paths';
import { ErrorState } from '../../ui/ErrorState';
import { MiddleEllipsis } from '../../ui/MiddleEllipsis';
import { RELATIVE_TIME_PERIOD_MS, RelativeTimeAt } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { useNow } from '../../ui/use-now';
import type { Mode } from './event-query';
import './EventTable.css';

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
  picked,
  onPick,
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
  /** Rows checked for a bulk action (redrive, replay). */
  picked: ReadonlySet<string>;
  onPick: (id: string, on: boolean) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const now = useNow(RELATIVE_TIME_PERIOD_MS);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    // Render on the next frame instead of synchronously inside each scroll event.
    useFlushSync: false,
  });
  useImperativeHandle(ref, () => ({ scrollToTop: () => virtualizer.scrollToOffset(0) }), [virtualizer]);

  // Row links keep the filters and swap the selection; the base is the same for every row.
  const baseSearch = useMemo(() => {
    const p = new URLSearchParams(params);
    p.delete('selected');
    p.delete('dead_letter');
    p.delete('delivery');
    return p.toString();
  }, [params]);

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !nextPageError && lastIndex >= rows.length - PREFETCH_ROWS) fetchNextPage();
  }, [lastIndex, rows.length, hasNextPage, isFetchingNextPage, nextPageError, fetchNextPage]);

  const deadMode = mode === 'dead-letters';

  const focusRow = (index: number) => {
    if (index < 0 || index >= rows.length) return;
    virtualizer.scrollToIndex(index, { align: 'auto' });
    requestAnimationFrame(() => {
      scrollRef.current?.querySelector<HTMLElement>(`tr[data-index="${index}"] a.row-link`)?.focus({ preventScroll: true });
    });
  };

  const onBodyClick = (e: MouseEvent<HTMLTableSectionElement>) => {
    const target = e.target as HTMLElement;
    const row = target.closest<HTMLTableRowElement>('tr[data-id]');
    if (!row) return;
    if (target instanceof HTMLInputElement && target.type === 'checkbox') {
      onPick(row.dataset.id!, target.checked);
      return;
    }
    const link = target.closest('a');
    // A run or entity link in a row opens that; the row link selects the row (unless the browser
    // is asked to open it in a new tab or window).
    if (link && !link.classList.contains('row-link')) return;
    if (link && (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0)) return;
    e.preventDefault();
    onSelect(row.dataset.id!);
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
        {/* Grid layout instead of table layout: each row is positioned on its own, so a scroll
            frame lays out only the rows that came into view. Roles keep the table semantics. */}
        <table className={`data vtable${deadMode ? ' vtable-dead' : ''}`} role="table" aria-label={deadMode ? 'Events with dead letters' : 'Events'} aria-rowcount={rows.length + 1}>
          <thead role="rowgroup">
            <tr role="row" aria-rowindex={1}>
              <th role="columnheader" scope="col" className="c-pick">
                <span className="visually-hidden">Select</span>
              </th>
              <th role="columnheader" scope="col" className="c-time">Time</th>
              <th role="columnheader" scope="col" className="c-name">Event</th>
              <th role="columnheader" scope="col" className="c-id hide-narrow">
                Event id
              </th>
              {deadMode ? (
                <>
                  <th role="columnheader" scope="col" className="c-failure">Failure</th>
                  <th role="columnheader" scope="col" className="c-handler hide-narrow hide-with-detail">
                    Handler
                  </th>
                  <th role="columnheader" scope="col" className="c-retries hide-narrow hide-with-detail num">
                    Retries
                  </th>
                </>
              ) : (
                <>
                  <th role="columnheader" scope="col" className="c-source hide-narrow hide-with-detail">
                    Source
                  </th>
                  <th role="columnheader" scope="col" className="c-run hide-narrow hide-with-detail">
                    Run
                  </th>
                  <th role="columnheader" scope="col" className="c-entity hide-narrow hide-with-detail">
                    Entity
                  </th>
                  <th role="columnheader" scope="col" className="c-deliveries hide-narrow hide-with-detail">
                    Deliveries
                  </th>
                </>
              )}
              <th role="columnheader" scope="col" className="c-dl num" title="Dead letters">
                <span aria-hidden="true">DL</span>
                <span className="visually-hidden">Dead letters</span>
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup" onClick={onBodyClick} style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const event = rows[item.index];
              if (!event) return null;
              return (
                <EventRow
                  key={event.event_id}
                  event={event}
                  index={item.index}
                  start={item.start}
                  selected={event.event_id === selectedId}
                  picked={picked.has(event.event_id)}
                  now={now}
                  deadMode={deadMode}
                  baseSearch={baseSearch}
                />
              );
            })}
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

const EventRow = memo(function EventRow({
  event: e,
  index,
  start,
  selected,
  picked,
  now,
  deadMode,
  baseSearch,
}: {
  event: StoredEvent;
  index: number;
  start: number;
  selected: boolean;
  picked: boolean;
  now: number;
  deadMode: boolean;
  baseSearch: string;
}) {
  const dl = e.dead_letters[0];
  const href = `?${baseSearch ? `${baseSearch}&` : ''}selected=${encodeURIComponent(e.event_id)}`;
  return (
    <tr
      role="row"
      data-index={index}
      data-id={e.event_id}
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-testid="event-row"
      style={{ transform: `translateY(${start}px)` }}
    >
      <td role="cell" className="c-pick">
        {/* Uncontrolled-looking but driven by `picked`: the body's click handler reports the change. */}
        <input type="checkbox" checked={picked} onChange={() => undefined} aria-label={`Select ${e.event_name} ${e.event_id}`} data-testid="pick-row" />
      </td>
      <td role="cell" className="c-time">
        <RelativeTimeAt iso={e.created_at} now={now} />
      </td>
      <td role="cell" className="c-name" title={e.event_name}>
        <a className="row-link" href={href}>
          {e.event_name}
        </a>
      </td>
      <td role="cell" className="c-id hide-narrow mono">
        <MiddleEllipsis text={e.event_id} />
      </td>
      {deadMode ? (
        <>
          <td role="cell" className="c-failure">
            {dl ? <StatusBadge value={dl.failure_type} tone="bad" /> : '—'} <RedriveMark deadLetters={e.dead_letters} />
          </td>
          <td role="cell" className="c-handler hide-narrow hide-with-detail mono">
            {dl?.handler_node ? <MiddleEllipsis text={dl.handler_node} /> : '—'}
          </td>
          <td role="cell" className="c-retries hide-narrow hide-with-detail num">{dl?.retry_count ?? '—'}</td>
        </>
      ) : (
        <>
          <td role="cell" className="c-source hide-narrow hide-with-detail">
            <MiddleEllipsis text={e.source} tail={12} />
          </td>
          <td role="cell" className="c-run hide-narrow hide-with-detail mono">
            {e.run_id ? (
              <Link to={paths.run(e.run_id)} tabIndex={-1} className="mid-ellipsis-link">
                <MiddleEllipsis text={e.run_id} />
              </Link>
            ) : (
              '—'
            )}
          </td>
          <td role="cell" className="c-entity hide-narrow hide-with-detail mono">
            {e.entity_id ? (
              <Link to={paths.entity(e.entity_id)} tabIndex={-1} className="mid-ellipsis-link">
                <MiddleEllipsis text={e.entity_id} tail={6} />
              </Link>
            ) : (
              '—'
            )}
          </td>
          <td role="cell" className="c-deliveries hide-narrow hide-with-detail">{deliverySummary(e)}</td>
        </>
      )}
      <td role="cell" className={`c-dl num${e.dead_letters.length ? ' bad' : ''}`}>{e.dead_letters.length || ''}</td>
    </tr>
  );
});

/** Whether the event's dead letters were redriven: all of them, some (n of m), or none (nothing shown). */
function RedriveMark({ deadLetters }: { deadLetters: StoredEvent['dead_letters'] }) {
  const redriven = deadLetters.filter((d) => d.redrive).length;
  if (redriven === 0) return null;
  const all = redriven === deadLetters.length;
  return (
    <span className="badge badge-ok" data-testid="redriven-mark" title={all ? 'Every dead letter of this event was redriven' : `${redriven} of ${deadLetters.length} dead letters were redriven`}>
      {all ? 'redriven' : `${redriven}/${deadLetters.length} redriven`}
    </span>
  );
}

function deliverySummary(e: StoredEvent): string {
  if (e.deliveries.length === 0) return 'no subscribers';
  const counts = new Map<string, number>();
  for (const d of e.deliveries) counts.set(d.status, (counts.get(d.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status.replace('_', ' ')}`).join(' · ');
}
