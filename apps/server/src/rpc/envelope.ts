/** JSON-RPC 2.0 envelope rules (v1-decisions, Transport): what counts as a request, a notification, a batch. */
import { RpcError, toErrorObject, type RpcErrorObject } from '@switchboard/contract';
import { SerializedResult } from './serialized-result';

export type RpcId = string | number | null;

export interface RpcRequest {
  id: RpcId;
  /** No `id` member: executed, never answered. */
  notification: boolean;
  method: string;
  params: unknown;
}

export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorObject };

export const MAX_BATCH = 100;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validId(v: unknown): v is RpcId {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * Checks one request object. On failure returns the id to answer with (the request's own id when
 * it had a usable one, else null) and the error.
 */
export function readRequest(value: unknown): { ok: true; request: RpcRequest } | { ok: false; id: RpcId; error: RpcError } {
  if (!isPlainObject(value)) return { ok: false, id: null, error: new RpcError('INVALID_REQUEST', 'Invalid Request: expected a JSON-RPC 2.0 request object') };
  const id = 'id' in value && validId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return { ok: false, id, error: new RpcError('INVALID_REQUEST', 'Invalid Request: "jsonrpc" must be "2.0"') };
  if (typeof value.method !== 'string' || value.method.length === 0)
    return { ok: false, id, error: new RpcError('INVALID_REQUEST', 'Invalid Request: "method" must be a non-empty string') };
  if ('id' in value && !validId(value.id))
    return { ok: false, id: null, error: new RpcError('INVALID_REQUEST', 'Invalid Request: "id" must be a string, a number or null') };
  // JSON-RPC 2.0 allows an object or an array here; arrays pass so the dispatcher can answer INVALID_PARAMS.
  if ('params' in value && (value.params === null || typeof value.params !== 'object'))
    return { ok: false, id, error: new RpcError('INVALID_REQUEST', 'Invalid Request: "params" must be an object') };
  return { ok: true, request: { id: 'id' in value ? (value.id as RpcId) : null, notification: !('id' in value), method: value.method, params: value.params } };
}

/** What a client is told of an unexpected fault: never its cause, always how to report it. */
export const INTERNAL_MESSAGE = 'Internal error; quote the correlation id when reporting it';

export function errorResponse(id: RpcId, error: RpcError, correlationId: string): RpcResponse {
  return { jsonrpc: '2.0', id, error: toErrorObject(error, correlationId) };
}

/** The method name a request entry claims, for log lines (bounded, never trusted for dispatch). */
export function methodNameOf(entry: unknown): string {
  const method = isPlainObject(entry) ? entry.method : undefined;
  return typeof method === 'string' ? method.slice(0, 100) : '(invalid)';
}

/**
 * An answer's JSON text. A single answer whose result is already text (a reader thread's page)
 * gets it spliced in rather than parsed and serialized again; anything else serializes as usual,
 * a SerializedResult through its toJSON.
 */
export function answerText(body: RpcResponse | RpcResponse[]): string {
  if (!Array.isArray(body) && 'result' in body && body.result instanceof SerializedResult) {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${body.result.json}}`;
  }
  return JSON.stringify(body);
}
