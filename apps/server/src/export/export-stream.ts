/**
 * An export as a byte stream the HTTP layer can answer with. The stream is pulled: the next page
 * is read only when the client has taken the previous one (the Node adapter reads again on the
 * socket's drain), so a slow client slows the walk instead of filling memory, and at most one page
 * is held at a time. A client that goes away cancels the stream, and no further page is read.
 */
import { stringify } from 'csv-stringify/sync';
import type { ExportFormat } from '@switchboard/contract';
import type { ExportList, ExportPage } from './export-lists';


export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/** How a walk ended: every page written, the client went away, or a page read failed. */
export type ExportOutcome = 'complete' | 'client_closed' | 'failed';

export interface ExportSummary {
  outcome: ExportOutcome;
  rows: number;
  pages: number;
  error?: unknown;
}

export interface ExportWalk {
  list: ExportList;
  format: ExportFormat;
  /** Validated list params, without limit and cursor. */
  params: Record<string, unknown>;
  /** The first page, read before the answer starts so that its errors can still be an error answer. */
  first: ExportPage<object>;
  readPage(cursor: string): Promise<ExportPage<object>>;
  /** Called once, however the walk ends. */
  onEnd(summary: ExportSummary): void;
}

/**
 * Spreadsheets run a cell that starts with one of these as a formula: text from payloads and
 * error messages is untrusted, so such a cell is written with a leading apostrophe (OWASP's
 * advice for CSV injection). Numbers and JSON cells never start with one.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: unknown): string | number | boolean {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function encodePage(walk: ExportWalk, rows: readonly object[], withHeader: boolean): string {
  if (walk.format === 'jsonl') {
    let out = '';
    for (const row of rows) out += JSON.stringify(row) + '\n';
    return out;
  }
  const { columns } = walk.list;
  const records = rows.map((row) => columns.map((c) => csvCell(c.cell(row))));
  return stringify(records, { header: withHeader, columns: columns.map((c) => c.name), eof: true });
}

export function exportStream(walk: ExportWalk): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: ExportPage<object> | undefined = walk.first;
  let cursor: string | undefined;
  let pages = 0;
  let rows = 0;
  let ended = false;
  const end = (outcome: ExportOutcome, error?: unknown) => {
    if (ended) return;
    ended = true;
    walk.onEnd({ outcome, rows, pages, ...(error === undefined ? {} : { error }) });
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const page = pending ?? (await walk.readPage(cursor!));
          pending = undefined;
          // Cancelled while the page was read: the client is gone, nothing more is written.
          if (ended) return;
          pages++;
          rows += page.rows.length;
          const text = encodePage(walk, page.rows, pages === 1);
          if (text.length > 0) controller.enqueue(encoder.encode(text));
          if (page.next_cursor === undefined) {
            controller.close();
            end('complete');
          } else {
            cursor = page.next_cursor;
          }
        } catch (error) {
          if (ended) return;
          // The status line is long sent: a broken-off body is all the client can be told.
          controller.error(error);
          end('failed', error);
        }
      },
      cancel() {
        end('client_closed');
      },
    },
    // Nothing read ahead: a page is read when the consumer asks for bytes, not before.
    { highWaterMark: 0 },
  );
}
