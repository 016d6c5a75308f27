/**
 * The mailbox: the queue of items awaiting (or past) an operator decision, and the review of one
 * item at `/mailbox/<id>`. Filters live in the query string, the selected item in the path.
 * Keyboard: j/k next/previous item, a approve, r reject.
 */
import { useCallback, useLayoutEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useMailboxItem, useMailboxList, type MailboxFilter } from '../../api/mailbox';
import { paths } from '../../paths';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { onlyKeys, useUrlState } from '../../url-state';
import { DecisionDialog, type DecisionMode, type DecisionOutcome } from './DecisionDialog';
import { MailboxFilters } from './MailboxFilters';
import { MailboxQueue } from './MailboxQueue';
import { MailboxReview } from './MailboxReview';
import { PRIORITIES, STATUSES } from './mailbox-format';
import { RefreshButton } from '../../ui/RefreshButton';
import { ExportMenu } from '../../ui/ExportMenu';
import { approveUnavailable } from './approval-rules';
import { useViewer } from './use-viewer';
import { useCan } from '../../api/access';
import { parsePayloadFilter } from '../events/payload-filter';
import './MailboxScreen.css';

function filterFromUrl(params: URLSearchParams): MailboxFilter {
  const filter: MailboxFilter = {};
  const status = params.get('status');
  if (status && (STATUSES as string[]).includes(status)) filter.status = status as MailboxFilter['status'];
  const priority = params.get('priority');
  if (priority && (PRIORITIES as string[]).includes(priority)) filter.priority = priority as MailboxFilter['priority'];
  const type = params.get('type')?.trim();
  if (type) filter.type = type;
  const flow = params.get('source_flow')?.trim();
  if (flow) filter.source_flow = flow;
  const reasonCode = params.get('reason_code')?.trim();
  if (reasonCode) filter.reason_code = reasonCode;
  const payload = parsePayloadFilter(params.get('payload') ?? '');
  if (payload.ok && payload.conditions.length > 0) filter.payload = payload.conditions;
  return filter;
}

/** Single-key shortcuts must not fire while the operator types or a dialog is open. */
function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)));
}

export default function MailboxScreen() {
  const mailboxId = useParams()['*'] || undefined;
  const [params, update] = useUrlState();
  const location = useLocation();
  const navigate = useNavigate();
  // Only the filter members of the URL, so that selecting an item does not make a new filter (and a refetch).
  const filterQuery = onlyKeys(params, ['status', 'priority', 'type', 'source_flow', 'reason_code', 'payload']);
  const filter = useMemo(() => filterFromUrl(new URLSearchParams(filterQuery)), [filterQuery]);
  const list = useMailboxList(filter);
  const items = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const review = useMailboxItem(mailboxId);
  const [dialog, setDialog] = useState<{ mode: DecisionMode; snapshot: NonNullable<typeof review.data> } | null>(null);
  const [outcome, setOutcome] = useState<DecisionOutcome | null>(null);
  const filtered = Object.keys(filter).length > 0;

  const open = useCallback((id: string) => navigate(`${paths.mailbox(id)}${location.search}`), [navigate, location.search]);
  const index = items.findIndex((i) => i.mailbox_id === mailboxId);
  const step = useCallback(
    (delta: 1 | -1) => {
      if (items.length === 0) return;
      const next = index < 0 ? 0 : Math.min(items.length - 1, Math.max(0, index + delta));
      if (items[next] && next !== index) open(items[next].mailbox_id);
    },
    [items, index, open],
  );
  const nextPending = useMemo(() => {
    const after = items.slice(index + 1).find((i) => i.status === 'pending' && i.mailbox_id !== mailboxId);
    return after ?? items.find((i) => i.status === 'pending' && i.mailbox_id !== mailboxId);
  }, [items, index, mailboxId]);

  const viewer = useViewer();
  const mayDecide = useCan('mailbox:decide').allowed;
  const decide = useCallback(
    (mode: DecisionMode) => {
      if (!mayDecide || review.data?.item.status !== 'pending') return;
      // The approve button says why it is unavailable; the shortcut does not open what it would refuse.
      if (mode === 'approve' && approveUnavailable(review.data, viewer)) return;
      setDialog({ mode, snapshot: review.data });
    },
    [review.data, viewer, mayDecide],
  );

  // A layout effect: the listener with this render's selection is in place before the browser
  // handles another event, so a second quick "j" steps on from the row the first one opened
  // (after a plain effect it could still see the old selection and open the same row again).
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey || dialog || isTypingTarget(e.target)) return;
      if (document.querySelector('[role="dialog"]')) return;
      if (e.key === 'j') step(1);
      else if (e.key === 'k') step(-1);
      else if (e.key === 'a') decide('approve');
      else if (e.key === 'r') decide('reject');
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [step, decide, dialog]);

  const nextPageError = list.isFetchNextPageError ? list.error : null;
  const pendingLoaded = items.filter((i) => i.status === 'pending').length;

  return (
    <section className="screen mailbox-screen" aria-labelledby="mailbox-title">
      <div className="screen-header">
        <h1 id="mailbox-title">Mailbox</h1>
        {list.isSuccess && (
          <span className="count" aria-live="polite" data-testid="mailbox-count">
            {items.length}
            {list.hasNextPage ? '+' : ''} item{items.length === 1 ? '' : 's'}, {pendingLoaded} pending
          </span>
        )}
        <RefreshButton query={list} />
        <ExportMenu list="mailbox" params={filtered ? { filter } : {}} />
      </div>
      <MailboxFilters params={params} update={update} />
      <div className="split mailbox-split">
        <div className={`split-main queue-pane${mailboxId ? ' has-selection' : ''}`}>
          {list.isPending ? (
            <LoadingState label="Loading the mailbox" />
          ) : list.isError && list.data === undefined ? (
            <ErrorState error={list.error} onRetry={() => void list.refetch()} />
          ) : items.length === 0 ? (
            <EmptyState title={filtered ? 'No items match these filters' : 'The mailbox is empty'}>
              {filtered ? (
                <button type="button" className="btn" onClick={() => update({ status: null, priority: null, type: null, source_flow: null })}>
                  Clear filters
                </button>
              ) : (
                <p>Items appear here when a flow asks for a human decision.</p>
              )}
            </EmptyState>
          ) : (
            <MailboxQueue
              items={items}
              selectedId={mailboxId}
              search={location.search}
              hasNextPage={Boolean(list.hasNextPage)}
              isFetchingNextPage={list.isFetchingNextPage}
              fetchNextPage={() => void list.fetchNextPage()}
              nextPageError={nextPageError}
            />
          )}
        </div>
        {mailboxId ? (
          <MailboxReview
            mailboxId={mailboxId}
            query={review}
            outcome={outcome}
            onDecide={decide}
            onClose={() => navigate(`/mailbox${location.search}`)}
            onNext={nextPending ? () => open(nextPending.mailbox_id) : undefined}
          />
        ) : (
          <div className="review-placeholder hide-narrow">
            <EmptyState title="Pick an item to review">
              <p>
                Select an item in the queue, or press <kbd>j</kbd> to open the first one.
              </p>
            </EmptyState>
          </div>
        )}
      </div>
      {dialog && (
        <DecisionDialog
          mode={dialog.mode}
          review={dialog.snapshot}
          onClose={() => setDialog(null)}
          onDecided={(o) => {
            setOutcome(o);
            setDialog(null);
          }}
          onReload={() => {
            setDialog(null);
            void review.refetch();
          }}
        />
      )}
    </section>
  );
}
