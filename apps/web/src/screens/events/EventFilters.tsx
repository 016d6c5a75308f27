/** Every event.list filter, plus the time range. Text filters settle for a moment before the URL changes. */
import { useEffect, useId, useState } from 'react';
import { useCatalog } from '../../api/events';
import { SavedViews } from '../../ui/SavedViews';
import { useUrlDraft, type UrlPatch } from '../../url-state';
import { FILTER_KEYS, RANGE_CHOICES, fromLocalInput, rangeOf, toLocalInput, type FilterKey, type Mode } from './event-query';
import { parsePayloadFilter } from './payload-filter';
import './EventFilters.css';

const LABELS: Record<FilterKey, { label: string; placeholder: string }> = {
  event_name: { label: 'Event name', placeholder: 'e.g. refund (starts with)' },
  payload: { label: 'Payload', placeholder: 'e.g. payload.ticket_id = T-1030' },
  entity_id: { label: 'Entity id', placeholder: 'entity id' },
  run_id: { label: 'Run id', placeholder: 'run id' },
  subscriber_id: { label: 'Subscriber', placeholder: 'node or agent id' },
  reason_code: { label: 'Reason code', placeholder: 'delivery reason code' },
  event_id: { label: 'Event id', placeholder: 'event id' },
};
/** Shown without opening "More filters". */
const PRIMARY: FilterKey[] = ['event_name', 'payload'];

export function EventFilters({ mode, params, update }: { mode: Mode; params: URLSearchParams; update: (patch: UrlPatch) => void }) {
  const committed = Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ''])) as Record<FilterKey, string>;
  const [draft, setDraft] = useUrlDraft(committed);
  const secondaryActive = FILTER_KEYS.some((k) => !PRIMARY.includes(k) && committed[k]);
  const [more, setMore] = useState(secondaryActive);
  useEffect(() => {
    if (secondaryActive) setMore(true);
  }, [secondaryActive]);

  const commit = (values: Record<FilterKey, string>) => {
    const patch: UrlPatch = { selected: null, dead_letter: null, delivery: null };
    for (const k of FILTER_KEYS) patch[k] = values[k].trim();
    update(patch);
  };
  useEffect(() => {
    if (FILTER_KEYS.every((k) => draft[k].trim() === committed[k])) return;
    if (!parsePayloadFilter(draft.payload).ok) return;
    const t = setTimeout(() => commit(draft), 450);
    return () => clearTimeout(t);
  }); // re-armed on every render while a draft differs from the URL

  const ids = { dead: useId(), redriven: useId(), range: useId(), since: useId(), until: useId(), more: useId() };
  const range = rangeOf(params);
  // The bundle's catalog names every event: the name field suggests them.
  const catalog = useCatalog();
  const catalogListId = useId();
  const payloadListId = useId();
  const payloadErrorId = useId();
  // The payload fields the bundle indexes; those of the events the name filter matches come first.
  const nameFilter = committed.event_name;
  const indexedFields = [
    ...new Set(
      (catalog.data?.events ?? [])
        .slice()
        .sort((a, b) => Number(!a.name.startsWith(nameFilter)) - Number(!b.name.startsWith(nameFilter)))
        .flatMap((e) => e.indexed_payload_fields ?? []),
    ),
  ];
  const payloadParse = parsePayloadFilter(draft.payload);
  const payloadError = payloadParse.ok ? undefined : payloadParse.error;
  const listOf = (k: FilterKey) => (k === 'event_name' ? { list: catalogListId } : k === 'payload' ? { list: payloadListId } : {});
  const field = (k: FilterKey) => (
    <div className={`field${k === 'payload' ? ' payload-field' : ''}`} key={k}>
      <label htmlFor={`filter-${k}`}>{LABELS[k].label}</label>
      <input
        id={`filter-${k}`}
        type="search"
        spellCheck={false}
        autoComplete="off"
        placeholder={LABELS[k].placeholder}
        value={draft[k]}
        onChange={(e) => setDraft((d) => ({ ...d, [k]: e.target.value }))}
        {...listOf(k)}
        {...(k === 'payload' && payloadError ? { 'aria-invalid': true, 'aria-describedby': payloadErrorId } : {})}
      />
      {k === 'payload' && (
        <datalist id={payloadListId} data-testid="payload-suggestions">
          {indexedFields.map((f) => (
            <option key={f} value={`payload.${f} = `}>
              indexed
            </option>
          ))}
        </datalist>
      )}
      {k === 'payload' && payloadError && (
        <p className="field-error" id={payloadErrorId} role="alert" data-testid="payload-filter-error">
          {payloadError}
        </p>
      )}
      {k === 'event_name' && (
        <datalist id={catalogListId} data-testid="event-name-suggestions">
          {catalog.data?.events.map((e) => (
            <option key={e.name} value={e.name}>
              {e.description}
            </option>
          ))}
        </datalist>
      )}
    </div>
  );

  return (
    <form
      className="filters"
      role="search"
      aria-label={mode === 'dead-letters' ? 'Dead letter filters' : 'Event filters'}
      onSubmit={(e) => {
        e.preventDefault();
        commit(draft);
      }}
    >
      {PRIMARY.map(field)}
      {mode === 'events' && (
        <div className="field">
          <label htmlFor={ids.dead}>Dead letters</label>
          <select id={ids.dead} value={params.get('dead') ?? ''} onChange={(e) => update({ dead: e.target.value, selected: null })}>
            <option value="">Any</option>
            <option value="1">Only with dead letters</option>
            <option value="0">Without dead letters</option>
          </select>
        </div>
      )}
      {mode === 'dead-letters' && (
        <div className="field">
          <label htmlFor={ids.redriven}>Redrive</label>
          <select id={ids.redriven} value={params.get('redriven') ?? ''} onChange={(e) => update({ redriven: e.target.value, selected: null })} data-testid="filter-redriven">
            <option value="">Any</option>
            <option value="0">Not yet redriven</option>
            <option value="1">Redriven</option>
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor={ids.range}>Time range</label>
        <select
          id={ids.range}
          value={range}
          onChange={(e) => {
            const value = e.target.value;
            if (value === 'custom') {
              update({ range: null, since: new Date(Date.now() - 3600_000).toISOString(), until: null, live: null });
            } else {
              update({ range: value, since: null, until: null });
            }
          }}
        >
          {RANGE_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      {range === 'custom' && (
        <>
          <div className="field">
            <label htmlFor={ids.since}>From</label>
            <input id={ids.since} type="datetime-local" value={toLocalInput(params.get('since'))} onChange={(e) => update({ since: fromLocalInput(e.target.value) })} />
          </div>
          <div className="field">
            <label htmlFor={ids.until}>Until</label>
            <input id={ids.until} type="datetime-local" value={toLocalInput(params.get('until'))} onChange={(e) => update({ until: fromLocalInput(e.target.value) })} />
          </div>
        </>
      )}
      <button type="button" className="btn btn-quiet" aria-expanded={more} aria-controls={ids.more} onClick={() => setMore((m) => !m)}>
        {more ? 'Fewer filters' : `More filters${secondaryActive ? ' (active)' : ''}`}
      </button>
      <div id={ids.more} className="filters-more" hidden={!more}>
        {FILTER_KEYS.filter((k) => !PRIMARY.includes(k)).map(field)}
      </div>
      <button type="submit" className="btn btn-small">
        Apply filters
      </button>
      <SavedViews list={mode === 'dead-letters' ? 'dead_letters' : 'events'} />
    </form>
  );
}
