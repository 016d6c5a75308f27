/**
 * Payload conditions of event.list and mailbox.list, without zod: the console parses and checks
 * the filter bar's `payload.ticket_id = T-1030` with the same rules the server applies.
 */

/** At most this many payload conditions in one filter. */
export const MAX_PAYLOAD_CONDITIONS = 8;
/** A path has at most this many segments (`customer.address.city` has 3). */
export const MAX_PAYLOAD_PATH_DEPTH = 8;
/** A path is at most this many characters. */
export const MAX_PAYLOAD_PATH_LENGTH = 200;
/** An `in` condition lists at most this many values. */
export const MAX_PAYLOAD_IN_VALUES = 100;
/** A string value (or prefix) is at most this many characters. */
export const MAX_PAYLOAD_VALUE_LENGTH = 500;

export const PAYLOAD_CONDITION_OPS = ['eq', 'in', 'prefix', 'exists'] as const;
export type PayloadConditionOp = (typeof PAYLOAD_CONDITION_OPS)[number];
export type PayloadScalar = string | number | boolean;

/** One condition on the value at `path` in a payload (the params' shape, as the contract's schema checks it). */
export type PayloadCondition =
  | { path: string; op: 'eq'; value: PayloadScalar }
  | { path: string; op: 'in'; value: PayloadScalar[] }
  | { path: string; op: 'prefix'; value: string }
  | { path: string; op: 'exists' };

/**
 * One segment of a payload path: an identifier. The strict syntax is what lets the store put a
 * path into SQL as a literal (an expression index matches only a literal path) without quoting
 * anything a client wrote.
 */
export const PAYLOAD_PATH_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `path` is not a payload path, or undefined when it is one. */
export function payloadPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'path must not be empty';
  if (path.length > MAX_PAYLOAD_PATH_LENGTH) return `path must be at most ${MAX_PAYLOAD_PATH_LENGTH} characters`;
  const segments = path.split('.');
  if (segments.length > MAX_PAYLOAD_PATH_DEPTH) return `path must have at most ${MAX_PAYLOAD_PATH_DEPTH} segments`;
  const bad = segments.find((s) => !PAYLOAD_PATH_SEGMENT.test(s));
  if (bad !== undefined) return `path segment "${bad}" must be a letter or "_" followed by letters, digits or "_" (dot-separated, e.g. customer.id)`;
  return undefined;
}
