/**
 * Event payload schemas are JSON Schema, validated by ajv (strict: an unknown keyword or format in
 * a bundle is an error at boot, not a silently ignored rule). Issues carry a path such as
 * "payload.amount" so a caller sees exactly which member is wrong, and schema problems name where
 * in the bundle they are ("events.x.payload_schema.properties.amount.format").
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export interface PayloadIssue {
  path: string;
  message: string;
}

type Schema = Record<string, unknown>;

const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);

/** Compiled once per schema object: bundle schemas live as long as the bundle. */
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** "/a/0/b~1c" → [a, 0, b/c] */
function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function joinPath(base: string, segments: string[]): string {
  return segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : `${path}.${s}`), base);
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function valueAt(root: unknown, segments: string[]): unknown {
  let current = root;
  for (const s of segments) current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[s] : undefined;
  return current;
}

function toIssue(error: ErrorObject, value: unknown, base: string): PayloadIssue {
  const segments = pointerSegments(error.instancePath);
  const at = joinPath(base, segments);
  switch (error.keyword) {
    case 'required':
      return { path: joinPath(at, [String(error.params.missingProperty)]), message: 'is required' };
    case 'additionalProperties':
      return { path: joinPath(at, [String(error.params.additionalProperty)]), message: 'is not allowed' };
    case 'type':
      return { path: at, message: `expected ${String(error.params.type).replaceAll(',', ' or ')}, got ${typeOf(valueAt(value, segments))}` };
    case 'enum':
      return { path: at, message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path: at, message: error.message ?? `fails ${error.keyword}` };
  }
}

export function validatePayload(schema: Schema, value: unknown, path = 'payload'): PayloadIssue[] {
  const validate = validatorFor(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => toIssue(e, value, path));
}

/** Where a keyword first appears in a schema, as path segments (for pointing at an unknown one). */
function findKey(node: unknown, key: string, at: string[] = []): string[] | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  if (!Array.isArray(node) && Object.hasOwn(node, key)) return [...at, key];
  for (const [k, child] of Object.entries(node)) {
    const found = findKey(child, key, [...at, k]);
    if (found) return found;
  }
  return undefined;
}

/** Checks a catalog schema is valid JSON Schema that ajv compiles strictly, so a typo fails at boot. */
export function checkPayloadSchema(schema: unknown, at: string): { at: string; problem: string } | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { at, problem: 'must be an object' };
  if (!ajv.validateSchema(schema)) {
    const first = ajv.errors![0]!;
    const extra = first.keyword === 'enum' ? ` (${(first.params.allowedValues as unknown[]).join(', ')})` : '';
    return { at: joinPath(at, pointerSegments(first.instancePath)), problem: `${first.message ?? 'is not valid JSON Schema'}${extra}` };
  }
  try {
    validatorFor(schema as Schema);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    const unknownFormat = /unknown format "(.+)" ignored in schema at path "#(.*)"/.exec(message);
    if (unknownFormat) return { at: joinPath(at, [...pointerSegments(unknownFormat[2]!), 'format']), problem: `unknown format "${unknownFormat[1]}"` };
    const unknownKeyword = /unknown keyword: "(.+)"/.exec(message);
    if (unknownKeyword) {
      const where = findKey(schema, unknownKeyword[1]!) ?? [unknownKeyword[1]!];
      return { at: joinPath(at, where), problem: `unsupported schema keyword "${unknownKeyword[1]}"` };
    }
    return { at, problem: message.replace(/^strict mode: /, '') };
  }
}
