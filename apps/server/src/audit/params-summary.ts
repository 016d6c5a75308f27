/**
 * What an audit record keeps of a call: ids, counts, enums, booleans and short reasons as sent;
 * payloads, secrets, objects and long text only as a sha256 of their canonical JSON, so a record
 * can be matched against a known value but never gives one away.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '@switchboard/contract';

/** Text up to this length is kept as sent (ids, names, enums, short reasons). */
const SHORT_TEXT = 200;
/** Lists of short text up to this many entries are kept (lists of ids). */
const SHORT_LIST = 100;
/** Members whose values are always hashed, whatever their shape. */
/** `url`: a Slack destination's URL is its secret. */
const HASHED_ALWAYS = /(^|_)(payload|secret|password|token|credentials?|url)$/i;
/** Already a fingerprint (see presentedSecretFingerprint): kept as it is. */
const FINGERPRINTS = new Set(['presented_secret']);
/** Ids an audit record lists as its targets, at most. */
const MAX_TARGETS = 100;

export function sha256Of(value: unknown): string {
  return 'sha256:' + hash('sha256', typeof value === 'string' ? value : canonicalJson(value));
}

function summaryOf(key: string, value: unknown): unknown {
  if (HASHED_ALWAYS.test(key) && !FINGERPRINTS.has(key)) return sha256Of(value);
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'string') return value.length <= SHORT_TEXT ? value : sha256Of(value);
  if (Array.isArray(value) && value.length <= SHORT_LIST && value.every((v) => typeof v === 'string' && v.length <= SHORT_TEXT)) return value;
  if (Array.isArray(value)) return { count: value.length, sha256: sha256Of(value) };
  return sha256Of(value);
}

/** A call's params as an audit record keeps them. Anything but an object is hashed whole. */
export function summariseParams(params: unknown): Record<string, unknown> {
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return { params: sha256Of(params) };
  const summary: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) summary[key.slice(0, SHORT_TEXT)] = summaryOf(key, value);
  }
  return summary;
}

function isIdKey(key: string): boolean {
  return key.endsWith('_id') && key !== 'idempotency_key' && key !== 'correlation_id';
}

function collectIds(from: Record<string, unknown>, into: Set<string>): void {
  for (const [key, value] of Object.entries(from)) {
    if (isIdKey(key) && typeof value === 'string' && value.length <= SHORT_TEXT) into.add(value);
    else if (key.endsWith('_ids') && Array.isArray(value)) {
      for (const id of value) if (typeof id === 'string' && id.length <= SHORT_TEXT) into.add(id);
    }
  }
}

/** Records the result names: a created or changed user, token, operation, run or event. */
const RESULT_RECORDS = ['user', 'token', 'operation', 'run', 'event', 'item', 'tool_server', 'rule', 'destination', 'notice', 'silence', 'view'] as const;

/**
 * The ids a call touches: its params' `*_id` and `*_ids` members, and the ids its result names
 * (`event_id`, `run_id`, and the `id` of a returned user, token or operation).
 */
export function targetIdsOf(params: unknown, result?: unknown): string[] {
  const ids = new Set<string>();
  if (typeof params === 'object' && params !== null && !Array.isArray(params)) collectIds(params as Record<string, unknown>, ids);
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
    const fields = result as Record<string, unknown>;
    collectIds(fields, ids);
    for (const name of RESULT_RECORDS) {
      const record = fields[name];
      if (typeof record === 'object' && record !== null && !Array.isArray(record)) {
        const id = (record as Record<string, unknown>).id;
        if (typeof id === 'string' && id.length <= SHORT_TEXT) ids.add(id);
      }
    }
  }
  return [...ids].slice(0, MAX_TARGETS);
}
