import { useEffect, useId } from 'react';
import { useUrlDraft, type UrlPatch } from '../../url-state';
import { useRejectReasons } from '../../api/mailbox';
import { SavedViews } from '../../ui/SavedViews';
import { PRIORITIES, STATUSES } from './mailbox-format';
import { parsePayloadFilter } from '../events/payload-filter';

/** Filters of the queue; every value lives in the URL. Text filters settle before they apply. */
export function MailboxFilters({ params, update }: { params: URLSearchParams; update: (patch: UrlPatch) => void }) {
  const ids = { status: useId(), type: useId(), flow: useId(), priority: useId(), reason: useId(), payload: useId() };
  const reasons = useRejectReasons();
  return (
    <form className="filters" role="search" aria-label="Mailbox filters" onSubmit={(e) => e.preventDefault()}>
      <div className="field">
        <label htmlFor={ids.status}>Status</label>
        <select id={ids.status} value={params.get('status') ?? ''} onChange={(e) => update({ status: e.target.value })}>
          <option value="">Any (pending first)</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <TextFilter id={ids.type} label="Type" placeholder="e.g. refund_approval" value={params.get('type') ?? ''} onChange={(v) => update({ type: v })} />
      <TextFilter id={ids.flow} label="Source flow" placeholder="e.g. support.refunds" value={params.get('source_flow') ?? ''} onChange={(v) => update({ source_flow: v })} />
      <TextFilter
        id={ids.payload}
        label="Payload"
        placeholder="e.g. payload.ticket_id = T-1030"
        value={params.get('payload') ?? ''}
        onChange={(v) => update({ payload: v })}
        problemOf={(v) => {
          const parsed = parsePayloadFilter(v);
          return parsed.ok ? undefined : parsed.error;
        }}
      />
      <div className="field">
        <label htmlFor={ids.priority}>Priority</label>
        <select id={ids.priority} value={params.get('priority') ?? ''} onChange={(e) => update({ priority: e.target.value })}>
          <option value="">Any</option>
          {PRIORITIES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </div>
      {reasons.data && reasons.data.reasons.length > 0 && (
        <div className="field">
          <label htmlFor={ids.reason}>Reject reason</label>
          <select id={ids.reason} value={params.get('reason_code') ?? ''} onChange={(e) => update({ reason_code: e.target.value })} data-testid="reason-code-filter">
            <option value="">Any</option>
            {reasons.data.reasons.map((r) => (
              <option key={`${r.type}:${r.code}`} value={r.code}>
                {r.label} ({r.count})
              </option>
            ))}
          </select>
        </div>
      )}
      <SavedViews list="mailbox" />
    </form>
  );
}

function TextFilter({
  id,
  label,
  placeholder,
  value,
  onChange,
  problemOf,
}: {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (v: string) => void;
  /** Why the text cannot apply; such text stays a draft, with the reason shown. */
  problemOf?: (v: string) => string | undefined;
}) {
  const [draft, setDraft] = useUrlDraft(value);
  const problem = problemOf?.(draft);
  useEffect(() => {
    if (draft.trim() === value || problem) return;
    const t = setTimeout(() => onChange(draft.trim()), 400);
    return () => clearTimeout(t);
  }, [draft, value, onChange, problem]);
  const problemId = `${id}-problem`;
  return (
    <div className={`field${problemOf ? ' payload-field' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        placeholder={placeholder}
        spellCheck={false}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !problem) onChange(draft.trim());
        }}
        {...(problem ? { 'aria-invalid': true, 'aria-describedby': problemId } : {})}
      />
      {problem && (
        <p className="field-error" id={problemId} role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
