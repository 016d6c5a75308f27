/**
 * The queue: mailbox items as a virtualised list (pending first, as the server orders them), so a
 * long backlog scrolls smoothly. Scrolling near the end loads the next page.
 */
import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { MailboxItem } from '@switchboard/contract';
import { Link } from 'react-router';
import { paths } from '../../paths';
import { ErrorState } from '../../ui/ErrorState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { PRIORITY_TONE, STATUS_TONE, payloadSummary } from './mailbox-format';
import './MailboxQueue.css';

const ROW_HEIGHT = 66;
const PREFETCH_ROWS = 20;

export function MailboxQueue({
  items,
  selectedId,
  search,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
  nextPageError,
}: {
  items: MailboxItem[];
  selectedId: string | undefined;
  search: string;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => void;
  nextPageError: unknown;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const virtualItems = virtualizer.getVirtualItems();
  const lastIndex = virtualItems.at(-1)?.index ?? 0;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !nextPageError && lastIndex >= items.length - PREFETCH_ROWS) fetchNextPage();
  }, [lastIndex, items.length, hasNextPage, isFetchingNextPage, nextPageError, fetchNextPage]);

  // Keep the selected item in view when it changes by keyboard.
  const selectedIndex = items.findIndex((i) => i.mailbox_id === selectedId);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  return (
    <>
      <div className="queue-scroll" ref={scrollRef} data-testid="mailbox-queue">
        <ul className="queue" aria-label="Mailbox items" style={{ height: virtualizer.getTotalSize() }}>
          {virtualItems.map((v) => {
            const item = items[v.index]!;
            const selected = item.mailbox_id === selectedId;
            return (
              <li
                key={item.mailbox_id}
                className="queue-row"
                aria-setsize={hasNextPage ? -1 : items.length}
                aria-posinset={v.index + 1}
                style={{ transform: `translateY(${v.start}px)`, height: ROW_HEIGHT }}
                data-testid="mailbox-row"
                data-status={item.status}
              >
                <Link
                  to={`${paths.mailbox(item.mailbox_id)}${search}`}
                  className="queue-link"
                  aria-current={selected ? 'true' : undefined}
                >
                  <span className="queue-line">
                    <StatusBadge value={item.status} tone={STATUS_TONE[item.status]} />
                    <StatusBadge value={item.priority} tone={PRIORITY_TONE[item.priority]} />
                    <span className="queue-type">{item.type}</span>
                    <span className="queue-time">
                      <RelativeTime iso={item.created_at} />
                    </span>
                  </span>
                  <span className="queue-line muted small">
                    <span className="mono">{item.source_flow}</span>
                    <span className="queue-summary">{payloadSummary(item.payload)}</span>
                  </span>
                </Link>
              </li>
            );
          })}
        </ul>
      </div>
      <div className="table-footer">
        {nextPageError ? <ErrorState compact error={nextPageError} onRetry={fetchNextPage} /> : null}
        {isFetchingNextPage ? <span>Loading more…</span> : hasNextPage ? <span>Scroll for more</span> : <span>All {items.length} items loaded</span>}
      </div>
    </>
  );
}
