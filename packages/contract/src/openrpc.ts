/**
 * Builds the OpenRPC 1.x document from the same method definitions the server validates with,
 * so the published API reference cannot drift from what is enforced.
 */
import { z } from 'zod';
import { ROLES, roleScopes } from './access';
import { errorRegistry, type ErrorCode } from './errors';
import { transportErrorCodes, type MethodDefinition } from './method';

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-7' }) as JsonSchema;
  delete out.$schema;
  return out;
}

function errorObject(code: ErrorCode) {
  const entry = errorRegistry[code];
  return { code: entry.rpcCode, message: code, data: { code, retryable: entry.retryable, description: entry.message } };
}

export interface OpenRpcInfo {
  title: string;
  version: string;
  description?: string;
}

/** One method of the published document, as clients (and the tests) read it. */
export type OpenRpcMethodObject = {
  name: string;
  summary: string;
  description?: string;
  paramStructure: 'by-name';
  params: { name: string; required: boolean; schema: JsonSchema; description?: string }[];
  result: { name: 'result'; schema: JsonSchema };
  errors: { code: number; message: string; data: { code: ErrorCode; retryable: boolean; description: string } }[];
  'x-scope': string;
  'x-roles': string[];
  deprecated?: true;
  tags?: { name: string }[];
};

export type OpenRpcDocument = {
  openrpc: string;
  info: OpenRpcInfo;
  servers: { name: string; url: string }[];
  methods: OpenRpcMethodObject[];
};

export function buildOpenRpcDocument(defs: Record<string, MethodDefinition>, info: OpenRpcInfo): OpenRpcDocument {
  const methods = Object.values(defs).map((def): OpenRpcMethodObject => {
    const params = toSchema(def.params, 'input');
    const properties = (params.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((params.required as string[] | undefined) ?? []);
    const codes = [...new Set<ErrorCode>([...def.errors, ...transportErrorCodes])];
    return {
      name: def.name,
      summary: def.summary,
      ...(def.description ? { description: def.description } : {}),
      paramStructure: 'by-name' as const,
      params: Object.entries(properties).map(([name, schema]) => ({
        name,
        required: required.has(name),
        schema,
        ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      })),
      result: { name: 'result' as const, schema: toSchema(def.result, 'output') },
      errors: codes.map(errorObject),
      'x-scope': def.scope,
      'x-roles': ROLES.filter((r) => roleScopes[r].includes(def.scope)),
      ...(def.deprecated ? { deprecated: true as const } : {}),
      ...(def.websocketOnly ? { tags: [{ name: 'websocket-only' }] } : {}),
    };
  });
  return {
    openrpc: '1.3.2',
    info,
    servers: [{ name: 'switchboard', url: '/v1/rpc' }],
    methods,
  };
}
