/**
 * The filter bar's payload conditions as people type them, and back:
 *
 *   payload.ticket_id = T-1030
 *   payload.amount = 250                 a bare number, true or false is typed: "250" (quoted) is the text
 *   payload.customer.tier in gold, silver
 *   payload.ticket_id starts with T-10   (also ^=)
 *   payload.refund_id exists
 *
 * Several conditions join with ";" or "and". A value in double quotes is JSON text, for a string
 * that looks like a number or holds ";", "," or quotes. "payload." may be left out. The server
 * checks the same rules; parsing here only lets the bar say what is wrong before asking.
 */
import {
  MAX_PAYLOAD_CONDITIONS,
  MAX_PAYLOAD_IN_VALUES,
  MAX_PAYLOAD_VALUE_LENGTH,
  payloadPathProblem,
  type PayloadCondition,
  type PayloadScalar,
} from '@switchboard/contract/payload-search';

export type PayloadFilterParse = { ok: true; conditions: PayloadCondition[] } | { ok: false; error: string };

/** `text` split at `separator` (a regex matching at the start of the rest) outside double quotes. */
function splitOutsideQuotes(text: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') {
      quoted = true;
      continue;
    }
    const m = separator.exec(text.slice(i));
    if (m && m.index === 0) {
      parts.push(text.slice(start, i));
      i += m[0].length - 1;
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function scalarOf(raw: string): { value: PayloadScalar } | { error: string } {
  const text = raw.trim();
  if (text === '') return { error: 'a value is missing' };
  if (text.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'string') return { error: `${text} is not a quoted text` };
      return { value };
    } catch {
      return { error: `${text} is not a closed quoted text` };
    }
  }
  if (text === 'true') return { value: true };
  if (text === 'false') return { value: false };
  if (NUMBER.test(text) && Number.isFinite(Number(text))) return { value: Number(text) };
  return { value: text };
}

const tooLong = (v: PayloadScalar) => typeof v === 'string' && [...v].length > MAX_PAYLOAD_VALUE_LENGTH;

/** One condition: PATH op VALUE. */
function conditionOf(raw: string): { condition: PayloadCondition } | { error: string } {
  const text = raw.trim();
  const m = /^(?:payload\.)?([^\s=^]+)\s*(=|\^=|\s+in\s+|\s+starts\s+with\s+|\s+exists\s*$)([\s\S]*)$/i.exec(text);
  if (!m) return { error: `"${text}" is not a condition: write payload.field = value, in a, b, starts with value, or exists` };
  const path = m[1]!;
  const problem = payloadPathProblem(path);
  if (problem) return { error: `${path}: ${problem}` };
  const op = m[2]!.trim().toLowerCase().replace(/\s+/g, ' ');
  const rest = m[3]!;
  if (op === 'exists') return { condition: { path, op: 'exists' } };
  if (op === 'in') {
    const inner = rest.trim().replace(/^\(([\s\S]*)\)$/, '$1');
    const values: PayloadScalar[] = [];
    for (const part of splitOutsideQuotes(inner, /^,/)) {
      const v = scalarOf(part);
      if ('error' in v) return { error: `${path} in: ${v.error}` };
      if (tooLong(v.value)) return { error: `${path}: a value must be at most ${MAX_PAYLOAD_VALUE_LENGTH} characters` };
      values.push(v.value);
    }
    if (values.length > MAX_PAYLOAD_IN_VALUES) return { error: `${path} in: at most ${MAX_PAYLOAD_IN_VALUES} values` };
    return { condition: { path, op: 'in', value: values } };
  }
  const v = scalarOf(rest);
  if ('error' in v) return { error: `${path}: ${v.error}` };
  if (tooLong(v.value)) return { error: `${path}: a value must be at most ${MAX_PAYLOAD_VALUE_LENGTH} characters` };
  if (op === '=') return { condition: { path, op: 'eq', value: v.value } };
  // starts with / ^= : a prefix is text, whatever it looks like.
  const prefix = typeof v.value === 'string' ? v.value : rest.trim();
  return { condition: { path, op: 'prefix', value: prefix } };
}

/** The conditions in the bar's text; an empty text has none. */
export function parsePayloadFilter(text: string): PayloadFilterParse {
  if (text.trim() === '') return { ok: true, conditions: [] };
  const parts = splitOutsideQuotes(text, /^(;|\s+and\s+)/i).filter((p) => p.trim() !== '');
  if (parts.length > MAX_PAYLOAD_CONDITIONS) return { ok: false, error: `at most ${MAX_PAYLOAD_CONDITIONS} payload conditions` };
  const conditions: PayloadCondition[] = [];
  for (const part of parts) {
    const c = conditionOf(part);
    if ('error' in c) return { ok: false, error: c.error };
    conditions.push(c.condition);
  }
  return { ok: true, conditions };
}

/** A value as the bar writes it: quoted when bare text would read as something else. */
function formatScalar(v: PayloadScalar): string {
  if (typeof v !== 'string') return String(v);
  const plain = v !== '' && v.trim() === v && !/[;,"()]|\s(and|in|exists|starts)\s/i.test(` ${v} `) && !(v === 'true' || v === 'false' || NUMBER.test(v));
  return plain ? v : JSON.stringify(v);
}

/** The bar's text for `conditions`: parsePayloadFilter reads it back to the same conditions. */
export function formatPayloadFilter(conditions: readonly PayloadCondition[]): string {
  return conditions
    .map((c) => {
      const path = `payload.${c.path}`;
      switch (c.op) {
        case 'eq':
          return `${path} = ${formatScalar(c.value as PayloadScalar)}`;
        case 'in':
          return `${path} in ${(c.value as PayloadScalar[]).map(formatScalar).join(', ')}`;
        case 'prefix':
          return `${path} starts with ${formatScalar(c.value as string)}`;
        case 'exists':
          return `${path} exists`;
      }
    })
    .join('; ');
}
