/**
 * The audit trail: who did what, through which channel, to which records, and how it ended,
 * newest first. Filters live in the URL (a pasted link opens the same view); a record's actor
 * filters to that actor's other actions; a target id opens its record the way "go to id" does.
 */
import { useId, useMemo, useState, type FormEvent } from 'react';
import { useAudit, type AuditFilters, type AuditRecord } from '../../api/audit';
import { useCan } from '../../api/access';
import { ActorLabel } from '../../ui/ActorLabel';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { IdLink } from '../../ui/IdLink';
import { LoadingState } from '../../ui/LoadingState';
import { RefreshButton } from '../../ui/RefreshButton';
import { ExportMenu } from '../../ui/ExportMenu';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { onlyKeys, useUrlState, type UrlPatch } from '../../url-state';
import './AuditScreen.css';

const FILTER_KEYS = ['actor', 'method', 'target', 'outcome', 'since', 'until'] as const;

export default function AuditScreen() {
  const can = useCan('audit.list');
  if (!can.allowed) {
    return (
      <section className="screen screen-page" aria-labelledby="audit-title">
        <h1 id="audit-title">Audit</h1>
        <EmptyState title={`The audit trail ${can.reason}`} />
      </section>
    );
  }
  return <AuditPage />;
}

function AuditPage() {
  const [params, update] = useUrlState();
  const key = onlyKeys(params, FILTER_KEYS);
  const filters = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  const query = useAudit(filters);
  const records = query.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Object.keys(filters).length > 0;
  const nextPageError = query.isFetchNextPageError ? query.error : null;

  return (
    <section className="screen" aria-labelledby="audit-title">
      <div className="screen-header">
        <h1 id="audit-title">Audit</h1>
        {query.isSuccess && (
          <span className="count" aria-live="polite">
            {records.length}
            {query.hasNextPage ? '+' : ''} record{records.length === 1 ? '' : 's'}
          </span>
        )}
        <RefreshButton query={query} />
        <ExportMenu list="audit" params={filters} />
      </div>
      <AuditFilterForm key={key} params={params} update={update} />
      <div className="split-main audit-list">
        {query.isPending ? (
          <LoadingState label="Loading the audit trail" />
        ) : query.isError && query.data === undefined ? (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        ) : records.length === 0 ? (
          <EmptyState title={filtered ? 'No audit records match these filters' : 'No audit records yet'}>
            {filtered ? (
              <button type="button" className="btn" onClick={() => update(Object.fromEntries(FILTER_KEYS.map((k) => [k, null])))}>
                Clear filters
              </button>
            ) : (
              <p>Every change, sign-in and refused call is recorded here as it happens.</p>
            )}
          </EmptyState>
        ) : (
          <>
            <AuditTable records={records} onActor={(actor) => update({ actor }, { push: true })} />
            <div className="table-footer">
              {nextPageError && <ErrorState compact error={nextPageError} />}
              {query.hasNextPage ? (
                <button type="button" className="btn" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage} data-testid="audit-load-more">
                  {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
                </button>
              ) : (
                <span>All {records.length} records loaded</span>
              )}
            </div>
          </>
        )}
      </div>
    </section>
  );
}

/** The URL's filters as audit.list takes them; `since`/`until` are ISO times in the URL. */
function filtersOf(params: URLSearchParams): AuditFilters {
  const f: AuditFilters = {};
  const get = (k: string) => params.get(k)?.trim() || undefined;
  const actor = get('actor');
  const method = get('method');
  const target = get('target');
  const outcome = get('outcome');
  const since = get('since');
  const until = get('until');
  if (actor) f.actor = actor;
  if (method) f.method = method;
  if (target) f.target_id = target;
  if (outcome) f.outcome = outcome;
  if (since) f.since = since;
  if (until) f.until = until;
  return f;
}

/** `datetime-local` speaks local time without a zone; the URL and the server speak ISO (UTC). */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const OUTCOME_CHOICES = [
  { value: '', label: 'Any outcome' },
  { value: 'ok', label: 'Succeeded' },
  { value: 'error', label: 'Any error' },
  { value: 'FORBIDDEN', label: 'Refused (forbidden)' },
  { value: 'UNAUTHENTICATED', label: 'Unauthenticated' },
];

function AuditFilterForm({ params, update }: { params: URLSearchParams; update: (patch: UrlPatch, opts?: { push?: boolean }) => void }) {
  const ids = { actor: useId(), method: useId(), target: useId(), outcome: useId(), since: useId(), until: useId() };
  const [draft, setDraft] = useState(() => ({
    actor: params.get('actor') ?? '',
    method: params.get('method') ?? '',
    target: params.get('target') ?? '',
    since: toLocalInput(params.get('since')),
    until: toLocalInput(params.get('until')),
  }));
  const outcome = params.get('outcome') ?? '';
  const knownOutcome = OUTCOME_CHOICES.some((c) => c.value === outcome);
  const set = (k: keyof typeof draft) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update({
      actor: draft.actor.trim() || null,
      method: draft.method.trim() || null,
      target: draft.target.trim() || null,
      since: fromLocalInput(draft.since),
      until: fromLocalInput(draft.until),
    });
  };
  return (
    <form className="filters audit-filters" role="search" aria-label="Audit filters" onSubmit={submit}>
      <div className="field">
        <label htmlFor={ids.actor}>Actor (user or token id)</label>
        <input id={ids.actor} type="search" value={draft.actor} onChange={set('actor')} spellCheck={false} placeholder="usr_… or tok_…" data-testid="audit-actor" />
      </div>
      <div className="field">
        <label htmlFor={ids.method}>Method</label>
        <input id={ids.method} type="search" value={draft.method} onChange={set('method')} spellCheck={false} placeholder="e.g. event.redrive" data-testid="audit-method" />
      </div>
      <div className="field">
        <label htmlFor={ids.target}>Target id</label>
        <input id={ids.target} type="search" value={draft.target} onChange={set('target')} spellCheck={false} data-testid="audit-target" />
      </div>
      <div className="field">
        <label htmlFor={ids.outcome}>Outcome</label>
        <select id={ids.outcome} value={outcome} onChange={(e) => update({ outcome: e.target.value || null })} data-testid="audit-outcome">
          {!knownOutcome && <option value={outcome}>{outcome}</option>}
          {OUTCOME_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.since}>Since</label>
        <input id={ids.since} type="datetime-local" value={draft.since} onChange={set('since')} />
      </div>
      <div className="field">
        <label htmlFor={ids.until}>Until</label>
        <input id={ids.until} type="datetime-local" value={draft.until} onChange={set('until')} />
      </div>
      <button type="submit" className="btn btn-small">
        Apply
      </button>
    </form>
  );
}

function AuditTable({ records, onActor }: { records: AuditRecord[]; onActor: (actor: string) => void }) {
  return (
    <div className="table-scroll">
      <table className="data audit-table" data-testid="audit-table">
        <thead>
          <tr>
            <th scope="col" className="col-time">
              Time
            </th>
            <th scope="col" className="col-actor">
              Actor
            </th>
            <th scope="col" className="col-channel hide-narrow">
              Channel
            </th>
            <th scope="col" className="col-method">
              Method
            </th>
            <th scope="col" className="col-targets hide-narrow">
              Targets
            </th>
            <th scope="col" className="col-outcome">
              Outcome
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => {
            const actor = r.user_id ?? r.token_id;
            return (
              <tr key={r.seq} data-testid="audit-row" data-seq={r.seq}>
                <td>
                  <RelativeTime iso={r.at} />
                </td>
                <td>
                  {actor ? (
                    <button type="button" className="link-button actor-filter" onClick={() => onActor(actor)} title={`Only this actor's actions (${actor})`} data-testid="audit-actor-link">
                      <ActorLabel id={r.token_id} userId={r.user_id} userName={r.user_name} />
                    </button>
                  ) : (
                    <span className="muted">anonymous</span>
                  )}
                </td>
                <td className="hide-narrow">{r.channel}</td>
                <td className="method-cell">
                  <code title={r.correlation_id ? `correlation id ${r.correlation_id}` : undefined}>{r.method}</code>
                  {/* On a phone the targets column gives way; the ids follow the method instead. */}
                  {r.target_ids.length > 0 && (
                    <div className="targets-inline">
                      <Targets ids={r.target_ids} />
                    </div>
                  )}
                </td>
                <td className="hide-narrow targets-cell">{r.target_ids.length === 0 ? <span className="muted">—</span> : <Targets ids={r.target_ids} />}</td>
                <td title={r.outcome} data-testid="audit-outcome-cell">
                  {r.outcome === 'ok' ? <StatusBadge value="ok" tone="ok" /> : <StatusBadge value={r.outcome} tone={r.outcome === 'FORBIDDEN' || r.outcome === 'UNAUTHENTICATED' ? 'warn' : 'bad'} />}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Targets({ ids }: { ids: string[] }) {
  return (
    <>
      {ids.map((t) => (
        <span key={t} className="target">
          <IdLink id={t} />
        </span>
      ))}
    </>
  );
}
