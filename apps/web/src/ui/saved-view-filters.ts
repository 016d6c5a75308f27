/**
 * What of a list screen's URL a saved view keeps: every search param but those that say what is
 * selected or shown rather than what is listed. A param added to a filter bar later is kept
 * without a change here; a selection param must be named below.
 */
import { MAX_SAVED_VIEW_FILTERS, MAX_SAVED_VIEW_REPEATS, MAX_SAVED_VIEW_VALUE_LENGTH, SAVED_VIEW_FILTER_NAME } from '@switchboard/contract/limits';
import type { SavedViewFilters, SavedViewList } from '../api/views';

/** The param that names the saved view a list was opened from (`/events?saved_view=view_…`). */
export const SAVED_VIEW_PARAM = 'saved_view';

export const LIST_SCREENS: Record<SavedViewList, { path: string; label: string; notFilters: readonly string[] }> = {
  events: { path: '/events', label: 'events', notFilters: ['selected', 'dead_letter', 'delivery', 'live', 'view'] },
  dead_letters: { path: '/dead-letters', label: 'dead letters', notFilters: ['selected', 'dead_letter', 'delivery', 'live', 'view'] },
  incidents: { path: '/incidents', label: 'incidents', notFilters: ['selected'] },
  mailbox: { path: '/mailbox', label: 'the mailbox', notFilters: [] },
};

/**
 * The filters in `params` as a view keeps them: a param given once is its value, one given more
 * than once the list of its values. Params the server would refuse (odd names, very long values)
 * are left out rather than failing the save.
 */
export function filtersOf(params: URLSearchParams, list: SavedViewList): SavedViewFilters {
  const skip = new Set([SAVED_VIEW_PARAM, ...LIST_SCREENS[list].notFilters]);
  const filters: SavedViewFilters = {};
  for (const name of new Set(params.keys())) {
    if (skip.has(name) || !SAVED_VIEW_FILTER_NAME.test(name)) continue;
    const values = params
      .getAll(name)
      .filter((v) => v !== '' && v.length <= MAX_SAVED_VIEW_VALUE_LENGTH)
      .slice(0, MAX_SAVED_VIEW_REPEATS);
    if (values.length === 0) continue;
    filters[name] = values.length === 1 ? values[0]! : values;
    if (Object.keys(filters).length === MAX_SAVED_VIEW_FILTERS) break;
  }
  return filters;
}

/** The query string (with its `?`) that opens `filters`, marked as opened from view `viewId`. */
export function searchOf(filters: SavedViewFilters, viewId?: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  if (viewId) params.set(SAVED_VIEW_PARAM, viewId);
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Whether two sets of filters list the same rows (the order of params does not matter; repeated values' order does). */
export function sameFilters(a: SavedViewFilters, b: SavedViewFilters): boolean {
  const canonical = (f: SavedViewFilters) => JSON.stringify(Object.entries(f).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]).sort(([x], [y]) => (String(x) < String(y) ? -1 : 1)));
  return canonical(a) === canonical(b);
}
