/**
 * The history of notices, newest first: what happened, to whom it was sent, and how sending went.
 * Filters (rule, destination, status) live in the URL; "Load more" follows the keyset cursor; the
 * list reads itself again while a notice is still pending; a failed notice can be resent with the
 * same id, so its receiver can de-duplicate.
 */
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useAlertDestinations, useAlertNotices, useAlertRules, useResendNotice, type AlertNotice, type NoticeFilters } from '../../api/alerts';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { GuardedButton } from '../../ui/GuardedButton';
import { LoadingState } from '../../ui/LoadingState';
import { newIdempotencyKey } from '../../ui/Modal';
import { RefreshButton } from '../../ui/RefreshButton';
import { RelativeTimeAt } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { UrlSelect } from '../../ui/UrlSelect';
import { useNow } from '../../ui/use-now';
import { onlyKeys, useUrlState } from '../../url-state';
import { noticeRecordPath, transitionLabel } from './alert-format';

const FILTER_KEYS = ['rule', 'destination', 'status'] as const;
const STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

function filtersOf(params: URLSearchParams): NoticeFilters {
  const f: NoticeFilters = {};
  const rule = params.get('rule')?.trim();
  const destination = params.get('destination')?.trim();
  const status = params.get('status');
  if (rule) f.rule_id = rule;
  if (destination) f.destination_id = destination;
  if (status && (STATUSES as readonly string[]).includes(status)) f.status = status as NoticeFilters['status'];
  return f;
}

export function NoticesSection() {
  const [params, update] = useUrlState();
  const key = onlyKeys(params, FILTER_KEYS);
  const filters = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  const notices = useAlertNotices(filters);
  const rules = useAlertRules();
  const destinations = useAlertDestinations();
  const items = notices.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Object.keys(filters).length > 0;
  const nextPageError = notices.isFetchNextPageError ? notices.error : null;
  const pending = items.some((n) => n.status === 'pending');

  const ruleChoices = [{ value: '', label: 'Any rule' }, ...(rules.data?.items ?? []).map((r) => ({ value: r.id, label: r.name }))];
  const destinationChoices = [{ value: '', label: 'Any destination' }, ...(destinations.data?.items ?? []).map((d) => ({ value: d.id, label: d.name }))];
  // A filter from a link may name a rule or destination since deleted: keep it choosable.
  for (const [param, choices] of [
    ['rule', ruleChoices],
    ['destination', destinationChoices],
  ] as const) {
    const v = params.get(param);
    if (v && !choices.some((c) => c.value === v)) choices.push({ value: v, label: v });
  }

  return (
    <section className="panel notices-panel" aria-labelledby="history-title">
      <div className="alerts-panel-header">
        <h2 id="history-title">History</h2>
        {notices.isSuccess && (
          <span className="count muted" aria-live="polite">
            {items.length}
            {notices.hasNextPage ? '+' : ''} notice{items.length === 1 ? '' : 's'}
            {pending ? ' · following pending notices' : ''}
          </span>
        )}
        <RefreshButton query={notices} />
      </div>
      <div className="filters notices-filters" role="search" aria-label="Notice filters">
        <UrlSelect label="Rule" param="rule" value={params.get('rule') ?? ''} defaultValue="" choices={ruleChoices} update={update} testId="notices-rule" />
        <UrlSelect
          label="Destination"
          param="destination"
          value={params.get('destination') ?? ''}
          defaultValue=""
          choices={destinationChoices}
          update={update}
          testId="notices-destination"
        />
        <UrlSelect
          label="Status"
          param="status"
          value={filters.status ?? ''}
          defaultValue=""
          choices={[{ value: '', label: 'Any status' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
          update={update}
          testId="notices-status"
        />
      </div>
      {notices.isPending ? (
        <LoadingState label="Loading notices" />
      ) : notices.isError && notices.data === undefined ? (
        <ErrorState error={notices.error} onRetry={() => void notices.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title={filtered ? 'No notices match these filters' : 'No notices yet'}>
          {filtered ? (
            <button type="button" className="btn" onClick={() => update(Object.fromEntries(FILTER_KEYS.map((k) => [k, null])))}>
              Clear filters
            </button>
          ) : (
            <p>Notices appear here when a rule fires, or when you send a test notice to a destination.</p>
          )}
        </EmptyState>
      ) : (
        <>
          <NoticesTable notices={items} />
          <div className="table-footer">
            {nextPageError && <ErrorState compact error={nextPageError} />}
            {notices.hasNextPage ? (
              <button type="button" className="btn" onClick={() => void notices.fetchNextPage()} disabled={notices.isFetchingNextPage} data-testid="notices-load-more">
                {notices.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            ) : (
              <span>{items.length === 1 ? 'The one notice is loaded' : `All ${items.length} notices loaded`}</span>
            )}
          </div>
        </>
      )}
    </section>
  );
}

function NoticesTable({ notices }: { notices: AlertNotice[] }) {
  const now = useNow(15_000);
  return (
    <div className="table-scroll">
      <table className="data notices-table" data-testid="notices-table">
        <thead>
          <tr>
            <th scope="col" className="col-time">
              Time
            </th>
            <th scope="col" className="col-what">
              What
            </th>
            <th scope="col" className="col-rule hide-narrow">
              Rule
            </th>
            <th scope="col" className="col-destination hide-narrow">
              Destination
            </th>
            <th scope="col" className="col-status">
              Status
            </th>
            <th scope="col" className="col-attempts num hide-narrow">
              Attempts
            </th>
          </tr>
        </thead>
        <tbody>
          {notices.map((n) => (
            <NoticeRow key={n.id} notice={n} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NoticeRow({ notice: n, now }: { notice: AlertNotice; now: number }) {
  const resend = useResendNotice();
  const [resent, setResent] = useState(false);
  const record = noticeRecordPath(n);
  const rule = n.rule_name ?? (n.rule_id ? n.rule_id : 'test notice');
  return (
    <tr data-testid="notice-row" data-notice-id={n.id} data-status={n.status}>
      <td>
        <RelativeTimeAt iso={n.created_at} now={now} />
      </td>
      <td>
        <div className="notice-what">
        <span className="muted small notice-transition">{transitionLabel(n.transition)}</span>
        <span className="notice-title" data-testid="notice-title">
          {record ? <Link to={record}>{n.title}</Link> : n.title}
        </span>
        {/* On a phone the rule and destination columns give way; they follow the title instead. */}
        <span className="notice-inline muted small">
          {rule} → {n.destination_name}
        </span>
        <span className="muted small mono notice-id" title="The webhook-id header: every retry and resend reuses it">
          {n.id}
        </span>
        </div>
      </td>
      <td className="hide-narrow">{n.rule_name ?? <span className="muted">{n.rule_id ?? 'test notice'}</span>}</td>
      <td className="hide-narrow">
        {n.destination_name} <span className="muted small">{n.kind === 'slack' ? 'Slack' : 'webhook'}</span>
      </td>
      <td>
        <div className="notice-status">
        <span data-testid="notice-status">
          <StatusBadge value={n.status} />
        </span>
        <span className="notice-attempts-inline muted small">
          {n.attempts} attempt{n.attempts === 1 ? '' : 's'}
        </span>
        {n.status === 'pending' && n.next_attempt_at && n.attempts > 0 && (
          <span className="muted small">
            retry <RelativeTimeAt iso={n.next_attempt_at} now={now} />
          </span>
        )}
        {n.status === 'delivered' && n.delivered_at && (
          <span className="muted small">
            <RelativeTimeAt iso={n.delivered_at} now={now} />
          </span>
        )}
        {n.last_error && (
          <span className="error-text notice-error" data-testid="notice-error" title={n.last_error}>
            {n.last_error}
          </span>
        )}
        {n.status === 'failed' && (
          <GuardedButton
            action="alert.notice_resend"
            className="btn btn-small"
            disabled={resend.isPending || resent}
            onClick={() => resend.mutate({ notice_id: n.id, idempotency_key: newIdempotencyKey() }, { onSuccess: () => setResent(true) })}
            data-testid="resend-notice"
          >
            {resend.isPending ? 'Resending…' : 'Resend'}
          </GuardedButton>
        )}
        {resend.error && <ErrorState compact error={resend.error} />}
        </div>
      </td>
      <td className="num hide-narrow">{n.attempts}</td>
    </tr>
  );
}
