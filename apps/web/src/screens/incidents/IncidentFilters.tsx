import { useEffect, useId } from 'react';
import { useUrlDraft, type UrlPatch } from '../../url-state';
import { UrlCheckbox } from '../../ui/UrlCheckbox';
import { SORT_CHOICES, STATE_CHOICES, type SortChoice } from './incident-state';

export const WINDOW_CHOICES = [
  { hours: 1, label: 'Last hour' },
  { hours: 6, label: 'Last 6 hours' },
  { hours: 24, label: 'Last 24 hours' },
  { hours: 72, label: 'Last 3 days' },
  { hours: 168, label: 'Last 7 days' },
  { hours: 720, label: 'Last 30 days' },
];

export function IncidentFilters({
  windowHours,
  component,
  mcpOnly,
  state,
  sort,
  update,
}: {
  windowHours: number;
  component: string;
  mcpOnly: boolean;
  state: string;
  sort: SortChoice;
  update: (patch: UrlPatch) => void;
}) {
  const ids = { window: useId(), component: useId(), mcp: useId(), state: useId(), sort: useId() };
  const [draft, setDraft] = useUrlDraft(component);
  // Typing settles before the URL (and the query) changes.
  useEffect(() => {
    if (draft.trim() === component) return;
    const t = setTimeout(() => update({ component: draft.trim(), selected: null }), 400);
    return () => clearTimeout(t);
  }, [draft, component, update]);

  return (
    <form className="filters" role="search" aria-label="Incident filters" onSubmit={(e) => {
      e.preventDefault();
      update({ component: draft.trim(), selected: null });
    }}>
      <div className="field">
        <label htmlFor={ids.window}>Look-back window</label>
        <select id={ids.window} value={windowHours} onChange={(e) => update({ window: e.target.value === '24' ? null : e.target.value })}>
          {WINDOW_CHOICES.map((c) => (
            <option key={c.hours} value={c.hours}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.state}>State</label>
        <select id={ids.state} value={state} onChange={(e) => update({ state: e.target.value === 'open' ? null : e.target.value, selected: null })} data-testid="incident-state-filter">
          {STATE_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.sort}>Sort</label>
        <select id={ids.sort} value={sort} onChange={(e) => update({ sort: e.target.value === 'severity' ? null : e.target.value })} data-testid="incident-sort">
          {SORT_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.component}>Component</label>
        <input id={ids.component} type="search" placeholder="e.g. mcp.payments" value={draft} onChange={(e) => setDraft(e.target.value)} spellCheck={false} />
      </div>
      <div className="field-inline">
        <UrlCheckbox id={ids.mcp} checked={mcpOnly} onCheckedChange={(mcp) => update({ mcp, selected: null })} />
        <label htmlFor={ids.mcp}>MCP only</label>
      </div>
    </form>
  );
}
