/**
 * Where a statement's LIMIT and OFFSET are bound parameters. SQLite (3.53 here) plans a statement
 * for the value bound to its LIMIT (`sqlite3ExprIsInteger` marks the parameter as one the plan
 * depends on), so each time that parameter is bound, which better-sqlite3 does on every call, the
 * next step prepares the whole statement again. For a small statement that doubles its cost; for an
 * incidents page's UNION ALL of "latest five" walks it was most of the statement's time
 * (docs/performance-notes.md, "Statements planned once"). The statement cache runs such
 * statements with the values written into the text instead (statement-cache.ts).
 */

/** The bound LIMIT and OFFSET values of a statement: which parameters, and where the text has them. */
export interface BoundLimits {
  /** Each `?` of LIMIT or OFFSET: its parameter's index and its offset in the text. */
  readonly placeholders: readonly { parameter: number; at: number }[];
  /** Every parameter that is not one of them, in order: the parameters the written-in text takes. */
  readonly otherParameters: readonly number[];
}

/**
 * The `?` that directly follow LIMIT or OFFSET in `sql`, or undefined when there are none or the
 * text numbers its parameters (`?1`), which this does not map. Quoted strings, quoted names and
 * comments are skipped, so a `?` inside them is not a parameter.
 */
export function boundLimitsOf(sql: string): BoundLimits | undefined {
  // Most texts have neither keyword: one native scan instead of a walk over every character.
  if (!MAY_HAVE_LIMIT.test(sql)) return undefined;
  const placeholders: { parameter: number; at: number }[] = [];
  const otherParameters: number[] = [];
  let parameter = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') i = closingQuote(sql, i, c);
    else if (c === '[') i = indexOrEnd(sql, ']', i + 1);
    else if (c === '-' && sql[i + 1] === '-') i = indexOrEnd(sql, '\n', i + 2);
    else if (c === '/' && sql[i + 1] === '*') i = indexOrEnd(sql, '*/', i + 2) + 1;
    else if (c === '?') {
      if (/[0-9]/.test(sql[i + 1] ?? '')) return undefined;
      if (followsLimitOrOffset(sql, i)) placeholders.push({ parameter, at: i });
      else otherParameters.push(parameter);
      parameter++;
    }
  }
  return placeholders.length > 0 ? { placeholders, otherParameters } : undefined;
}

const MAY_HAVE_LIMIT = /(?:limit|offset)\s*\?/i;
const LIMIT_OR_OFFSET_BEFORE = /[^\w$](?:limit|offset)\s*$/i;
/** How far back from a `?` its keyword is looked for: a bounded look, as a VALUES insert has thousands of `?`. */
const KEYWORD_WINDOW = 24;

function followsLimitOrOffset(sql: string, at: number): boolean {
  const start = Math.max(0, at - KEYWORD_WINDOW);
  // At the text's start there is no character before the keyword: a space stands for it.
  return LIMIT_OR_OFFSET_BEFORE.test((start === 0 ? ' ' : '') + sql.slice(start, at));
}

/**
 * The LIMIT and OFFSET values of a call as SQL integers, in the text's order; undefined when one is
 * not an integer (SQLite then converts or refuses it as it would the bound value).
 */
export function limitValuesOf(limits: BoundLimits, parameters: readonly unknown[]): string[] | undefined {
  const values: string[] = [];
  for (const { parameter } of limits.placeholders) {
    const value = parameters[parameter];
    if (typeof value === 'bigint') values.push(value.toString());
    else if (typeof value === 'number' && Number.isSafeInteger(value)) values.push(String(value));
    else return undefined;
  }
  return values;
}

/** `sql` with `values` (limitValuesOf) in place of its LIMIT and OFFSET parameters. */
export function textWithLimits(sql: string, limits: BoundLimits, values: readonly string[]): string {
  let text = '';
  let from = 0;
  limits.placeholders.forEach(({ at }, i) => {
    text += sql.slice(from, at) + values[i]!;
    from = at + 1;
  });
  return text + sql.slice(from);
}

/** The parameters a text with its limits written in takes: all but the LIMIT and OFFSET values. */
export function parametersBesideLimits(limits: BoundLimits, parameters: readonly unknown[]): unknown[] {
  return limits.otherParameters.map((p) => parameters[p]);
}

/** The index of the quote that closes the one at `open` (a doubled quote is one character of the text). */
function closingQuote(sql: string, open: number, quote: string): number {
  let i = open + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] !== quote) return i;
      i += 2;
    } else i++;
  }
  return sql.length;
}

function indexOrEnd(sql: string, search: string, from: number): number {
  const at = sql.indexOf(search, from);
  return at < 0 ? sql.length : at;
}
