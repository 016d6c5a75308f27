import { useEffect, useId } from 'react';
import { useUrlDraft, type UrlPatch } from '../../url-state';
import { SavedViews } from '../../ui/SavedViews';
import { UrlCheckbox } from '../../ui/UrlCheckbox';
import { UrlSelect } from '../../ui/UrlSelect';
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
  const ids = { component: useId(), mcp: useId() };
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
      <UrlSelect
        label="Look-back window"
        param="window"
        value={String(windowHours)}
        defaultValue="24"
        choices={WINDOW_CHOICES.map((c) => ({ value: String(c.hours), label: c.label }))}
        update={update}
      />
      <UrlSelect label="State" param="state" value={state} defaultValue={STATE_CHOICES[0]!.value} choices={STATE_CHOICES} update={update} extraPatch={{ selected: null }} testId="incident-state-filter" />
      <UrlSelect label="Sort" param="sort" value={sort} defaultValue="severity" choices={SORT_CHOICES} update={update} testId="incident-sort" />
      <div className="field">
        <label htmlFor={ids.component}>Component</label>
        <input id={ids.component} type="search" placeholder="e.g. mcp.payments" value={draft} onChange={(e) => setDraft(e.target.value)} spellCheck={false} />
      </div>
      <div className="field-inline">
        <UrlCheckbox id={ids.mcp} checked={mcpOnly} onCheckedChange={(mcp) => update({ mcp, selected: null })} />
        <label htmlFor={ids.mcp}>MCP only</label>
      </div>
      <SavedViews list="incidents" />
    </form>
  );
}
