import type { RecordJsonDialect } from '../../repositories/event-record-json';

/** SQLite's functions for an event record's JSON text (repositories/event-record-json.ts). */
export const SQLITE_RECORD_JSON: RecordJsonDialect = {
  // json_quote writes SQL NULL as the bare text null (a text 'null' comes back quoted).
  quote: (value) => `nullif(json_quote(${value}), 'null')`,
  joined: (text, orderBy) => `group_concat(${text}, ',' order by ${orderBy})`,
  traceIdPart: `(case when instr(e.traceparent, '-') > 0 then substr(substr(e.traceparent, instr(e.traceparent, '-') + 1), 1, instr(substr(e.traceparent, instr(e.traceparent, '-') + 1) || '-', '-') - 1) end)`,
  isLowerHex32: (part) => `(length(${part}) = 32 and ${part} not glob '*[^0-9a-f]*')`,
  payloadIsObject: `json_type(e.payload) = 'object'`,
};
