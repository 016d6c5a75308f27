import type { z } from 'zod';

/** What a client is told of a text field holding U+0000. */
export const NUL_TEXT_MESSAGE = 'contains U+0000 (NUL), which no text field accepts';

/**
 * The path of the first string in `value` (params that passed `schema`) holding U+0000, outside
 * opaque JSON (values a schema types as unknown, such as an event's payload); undefined when none.
 *
 * PostgreSQL's text cannot hold NUL: an identifier, filter or note carrying one failed inside
 * the store as an internal error there, while SQLite stored it. Refusing it here gives both engines
 * the same answer. Opaque JSON is stored as JSON text, where NUL is written as an escape, so a
 * payload may still carry it.
 */
export function nulTextPath(schema: z.ZodType, value: unknown, path: string[] = []): string | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'unknown':
    case 'any':
      return undefined;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return value === undefined || value === null ? undefined : nulTextPath(def.innerType!, value, path);
    case 'pipe':
      return nulTextPath(def.in!, value, path);
    case 'lazy':
      return nulTextPath(def.getter!(), value, path);
    case 'object': {
      if (!isObject(value)) return anyNulText(value, path);
      for (const [key, field] of Object.entries(def.shape!)) {
        const found = nulTextPath(field, value[key], [...path, key]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'record': {
      if (!isObject(value)) return anyNulText(value, path);
      // A record of unknown values is a JSON document, its keys included.
      if (isOpaque(def.valueType!)) return undefined;
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return pathOf([...path, key]);
        const found = nulTextPath(def.valueType!, item, [...path, key]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'array':
      if (!Array.isArray(value)) return anyNulText(value, path);
      for (let i = 0; i < value.length; i++) {
        const found = nulTextPath(def.element!, value[i], [...path, String(i)]);
        if (found !== undefined) return found;
      }
      return undefined;
    default:
      // Strings, enums, literals, and shapes this walk does not follow (unions): every string in
      // the value counts.
      return anyNulText(value, path);
  }
}

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
}

/** A schema's definition: zod 4 keeps it on `_zod.def`, which its own JSON Schema conversion walks too. */
function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

function isOpaque(schema: z.ZodType): boolean {
  const { type } = defOf(schema);
  return type === 'unknown' || type === 'any';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathOf(path: string[]): string {
  return path.join('.');
}

/** The first string (key or value) in `value` holding U+0000. Iterative: params are bounded in depth before this runs, but not in breadth. */
function anyNulText(value: unknown, path: string[]): string | undefined {
  const stack: [unknown, string[]][] = [[value, path]];
  while (stack.length > 0) {
    const [current, at] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return pathOf(at);
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push([item, [...at, String(i)]]));
    } else if (isObject(current)) {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return pathOf([...at, key]);
        stack.push([item, [...at, key]]);
      }
    }
  }
  return undefined;
}
