/**
 * The JSON Schema subset event catalogs use for payloads: type, required, properties, items, enum,
 * minLength/maxLength, minimum/maximum, additionalProperties=false. Issues carry a path such as
 * "payload.amount" so a caller sees exactly which member is wrong.
 */
export interface PayloadIssue {
  path: string;
  message: string;
}

type Schema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, expected: string): boolean {
  const actual = typeOf(value);
  if (expected === 'number') return actual === 'number' || actual === 'integer';
  return actual === expected;
}

export function validatePayload(schema: Schema, value: unknown, path = 'payload'): PayloadIssue[] {
  const issues: PayloadIssue[] = [];
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types.length > 0 && !types.some((t) => matchesType(value, t))) {
    issues.push({ path, message: `expected ${types.join(' or ')}, got ${typeOf(value)}` });
    return issues;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) {
    issues.push({ path, message: `must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` });
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) issues.push({ path, message: `must be at least ${schema.minLength} characters` });
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) issues.push({ path, message: `must be at most ${schema.maxLength} characters` });
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) issues.push({ path, message: `must be >= ${schema.minimum}` });
    if (typeof schema.maximum === 'number' && value > schema.maximum) issues.push({ path, message: `must be <= ${schema.maximum}` });
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    // Own members only: a payload without "constructor" does not inherit one from Object.prototype.
    const member = (key: string) => (Object.hasOwn(obj, key) ? obj[key] : undefined);
    for (const key of (schema.required ?? []) as string[]) {
      if (member(key) === undefined) issues.push({ path: `${path}.${key}`, message: 'is required' });
    }
    for (const [key, sub] of Object.entries(properties)) {
      if (member(key) !== undefined) issues.push(...validatePayload(sub, obj[key], `${path}.${key}`));
    }
    if (schema.additionalProperties === false) {
      for (const key of Object.keys(obj)) if (!Object.hasOwn(properties, key)) issues.push({ path: `${path}.${key}`, message: 'is not allowed' });
    }
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    value.forEach((item, i) => issues.push(...validatePayload(schema.items as Schema, item, `${path}[${i}]`)));
  }
  return issues;
}

/** Checks a catalog schema uses only what validatePayload understands, so a typo fails at boot. */
const KNOWN_KEYWORDS = new Set(['type', 'required', 'properties', 'items', 'enum', 'minLength', 'maxLength', 'minimum', 'maximum', 'additionalProperties', 'description', 'title']);
const KNOWN_TYPES = new Set(['object', 'string', 'number', 'integer', 'boolean', 'array', 'null']);

export function checkPayloadSchema(schema: unknown, at: string): { at: string; problem: string } | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { at, problem: 'must be an object' };
  const s = schema as Schema;
  for (const key of Object.keys(s)) if (!KNOWN_KEYWORDS.has(key)) return { at: `${at}.${key}`, problem: `unsupported schema keyword "${key}"` };
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  for (const t of types) if (typeof t !== 'string' || !KNOWN_TYPES.has(t)) return { at: `${at}.type`, problem: `unknown type ${JSON.stringify(t)}` };
  if (s.required !== undefined && (!Array.isArray(s.required) || s.required.some((r) => typeof r !== 'string')))
    return { at: `${at}.required`, problem: 'must be an array of property names' };
  if (s.properties !== undefined) {
    if (typeof s.properties !== 'object' || s.properties === null) return { at: `${at}.properties`, problem: 'must be an object' };
    for (const [k, sub] of Object.entries(s.properties as Schema)) {
      const found = checkPayloadSchema(sub, `${at}.properties.${k}`);
      if (found) return found;
    }
  }
  if (s.items !== undefined) return checkPayloadSchema(s.items, `${at}.items`);
  return undefined;
}
