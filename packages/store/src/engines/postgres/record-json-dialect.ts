import type { RecordJsonDialect } from '../../repositories/event-record-json';

/** PostgreSQL's functions for an event record's JSON text (repositories/event-record-json.ts). */
export const POSTGRES_RECORD_JSON: RecordJsonDialect = {
  quote: (value) => `to_json(${value})::text`,
  joined: (text, orderBy) => `string_agg(${text}, ',' order by ${orderBy})`,
  traceIdPart: `split_part(e.traceparent, '-', 2)`,
  isLowerHex32: (part) => `(${part} ~ '^[0-9a-f]{32}$')`,
  payloadIsObject: `json_typeof(e.payload::json) = 'object'`,
};
