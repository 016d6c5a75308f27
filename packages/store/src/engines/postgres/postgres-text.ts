/**
 * PostgreSQL's text cannot hold U+0000: a bound string carrying it fails its statement
 * (`invalid byte sequence for encoding "UTF8": 0x00`), and with it the transaction. Clients cannot
 * send it in a text param (the contract refuses it), but a handler can write it: a payload's field
 * copied into an entity's name, a tool's or a model's text. Every string bound on PostgreSQL has it
 * replaced with U+FFFD, as node-postgres already does for a lone surrogate, so such a write is
 * stored instead of failing the delivery. JSON text is unaffected: JSON writes NUL as an escape.
 */
const NUL = '\u0000';

/** `values` with U+0000 in each string (and each string of an array) replaced by U+FFFD; the same array when none holds it. */
export function textPostgresCanHold(values: readonly unknown[] | undefined): unknown[] | undefined {
  if (values === undefined) return undefined;
  let copy: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let held: unknown = value;
    if (typeof value === 'string') {
      if (value.includes(NUL)) held = value.replaceAll(NUL, '\uFFFD');
    } else if (Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes(NUL))) {
      held = value.map((item: unknown) => (typeof item === 'string' ? item.replaceAll(NUL, '\uFFFD') : item));
    }
    if (held !== value) (copy ??= [...values])[i] = held;
  }
  return copy ?? (values as unknown[]);
}
