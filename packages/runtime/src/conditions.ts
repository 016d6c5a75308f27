/**
 * Conditions of the form "<field> <op> <value>" used by entity gates ("refund_amount <= 500") and
 * by scripted agent rules ("subject contains 'refund'"). Values are numbers, quoted strings,
 * true/false or null.
 */
import { readPath } from './templates';

export interface ParsedCondition {
  field: string;
  op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'contains';
  value: unknown;
}

const CONDITION = /^\s*([A-Za-z_][\w.]*)\s*(<=|>=|==|!=|<|>|contains)\s*(.+?)\s*$/;

export function parseCondition(text: string): ParsedCondition | { error: string } {
  const m = CONDITION.exec(text);
  if (!m) return { error: `cannot parse condition "${text}": expected "<field> <op> <value>" with op one of == != < <= > >= contains` };
  const raw = m[3]!;
  let value: unknown;
  if (/^'.*'$|^".*"$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (raw === 'null') value = null;
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  else return { error: `cannot parse value ${raw} in condition "${text}": quote strings` };
  return { field: m[1]!, op: m[2] as ParsedCondition['op'], value };
}

export interface ConditionOutcome {
  passed: boolean;
  detail: string;
  /** A failing condition in short: the value against the limit it misses ("607.54 > 500"). */
  summary?: string;
}

const NEGATED: Record<ParsedCondition['op'], string> = { '==': '!=', '!=': '==', '<': '>=', '<=': '>', '>': '<=', '>=': '<', contains: 'does not contain' };

export function evaluateCondition(text: string, subject: Record<string, unknown>): ConditionOutcome {
  const parsed = parseCondition(text);
  if ('error' in parsed) return { passed: false, detail: parsed.error };
  const actual = readPath(subject, parsed.field);
  if (actual === undefined) return { passed: false, detail: `${parsed.field} is not set`, summary: `${parsed.field} is not set` };
  const shown = `${parsed.field} = ${JSON.stringify(actual)}`;
  let passed: boolean;
  switch (parsed.op) {
    case '==':
      passed = actual === parsed.value;
      break;
    case '!=':
      passed = actual !== parsed.value;
      break;
    case 'contains':
      passed = typeof actual === 'string' && typeof parsed.value === 'string' && actual.toLowerCase().includes(parsed.value.toLowerCase());
      break;
    default: {
      if (typeof actual !== 'number' || typeof parsed.value !== 'number') return { passed: false, detail: `${shown} is not a number`, summary: `${JSON.stringify(actual)} is not a number` };
      const a = actual;
      const b = parsed.value;
      passed = parsed.op === '<' ? a < b : parsed.op === '<=' ? a <= b : parsed.op === '>' ? a > b : a >= b;
    }
  }
  const detail = `${shown}; requires ${text.trim()}`;
  return passed ? { passed, detail } : { passed, detail, summary: `${JSON.stringify(actual)} ${NEGATED[parsed.op]} ${JSON.stringify(parsed.value)}` };
}
