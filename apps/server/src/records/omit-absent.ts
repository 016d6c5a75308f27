/**
 * Store rows carry NULL for absent values; the API omits absent optional fields instead of
 * sending null (spec: optional members are left out).
 */
export function omitAbsent<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  // for-in over the caller's literal, not Object.entries: list pages call this per event and per
  // delivery, and an array per field was a large share of their garbage.
  for (const k in fields) {
    const v = (fields as Record<string, unknown>)[k];
    if (v !== null && v !== undefined) out[k] = v;
  }
  return out as { [K in keyof T]: Exclude<T[K], null> };
}

/** JSON text columns that hold an object (payloads, entity fields). */
export function parseJsonObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/** JSON text columns that hold an array of objects (tool calls, turn blocks). */
export function parseJsonArray(text: string | null): Record<string, unknown>[] | undefined {
  if (text === null) return undefined;
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? (value as Record<string, unknown>[]) : undefined;
}
