/**
 * Streaming exports outside JSON-RPC: GET /v1/export/<list>?format=<format>&params=<JSON>. Each
 * list takes the params of its list method (without limit and cursor) and needs that method's
 * scope. Zod-free, so the console builds its links from the same names.
 */

/** The lists an export takes out, and the list method whose params, scope and pages each shares. */
export const EXPORT_LIST_METHODS = {
  events: 'event.list',
  /** event.list with has_dead_letter, one row per dead letter. */
  'dead-letters': 'event.list',
  /** mailbox.list, each item with its decision snapshots and history. */
  mailbox: 'mailbox.list',
  incidents: 'runtime.incidents',
  audit: 'audit.list',
} as const;

export type ExportListName = keyof typeof EXPORT_LIST_METHODS;
export const EXPORT_LIST_NAMES = Object.keys(EXPORT_LIST_METHODS) as ExportListName[];

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_PATH_PREFIX = '/v1/export/';

/** The URL of an export of `list` in `format` for the list method's `params`. */
export function exportHref(list: ExportListName, format: ExportFormat, params: object): string {
  const query = new URLSearchParams({ format, params: JSON.stringify(params) });
  return `${EXPORT_PATH_PREFIX}${list}?${query.toString()}`;
}
