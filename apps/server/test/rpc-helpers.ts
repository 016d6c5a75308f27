/** Small HTTP helpers shared by the API tests: raw posts and the error-shape checks every error must pass. */
import { expect } from 'vitest';
import type { ErrorCode, MethodName, ParamsInput, Result, RpcErrorObject } from '@switchboard/contract';
import type { TestServer } from './harness';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, or undefined when the body is empty. Raw on purpose: these tests send what the contract refuses. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies the contract refuses and batches, asserted member by member; typed calls go through rpc()
  json: any;

}

export async function rawPost(
  server: Pick<TestServer, 'url' | 'token'>,
  pathname: string,
  body: string,
  headers: Record<string, string | undefined> = {},
): Promise<RawResponse> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ 'content-type': 'application/json', authorization: `Bearer ${server.token}`, ...headers })) {
    if (v !== undefined) merged[k] = v;
  }
  const res = await fetch(server.url + pathname, { method: 'POST', headers: merged, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

export async function rawGet(server: Pick<TestServer, 'url'>, pathname: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(server.url + pathname, { headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Calls a contract method that must succeed; its typed result. */
export async function ok<M extends MethodName>(server: Pick<TestServer, 'rpc'>, method: M, params: ParamsInput<M> = {} as ParamsInput<M>): Promise<Result<M>> {
  const res = await server.rpc(method, params);
  if (res.error) throw new Error(`${method} failed: ${JSON.stringify(res.error)}`);
  return res.result;
}

/**
 * Calls a contract method that must fail with `code`; returns the error object. Params are not
 * typed: refused params are what many of these calls are about.
 */
export async function fails(server: Pick<TestServer, 'rpcUnchecked'>, method: MethodName, params: unknown, code: ErrorCode): Promise<TestRpcError> {
  const res = await server.rpcUnchecked(method, params);
  expectRpcError(res, code);
  return res.error as TestRpcError;
}

/** An error object whose details are read the way the tests read them. */
export type TestRpcError = Omit<RpcErrorObject, 'data'> & { data: Omit<RpcErrorObject['data'], 'details'> & { details: ErrorDetails } };

/** The v1 error shape: numeric code, message, data.{code, details, retryable, correlation_id}. */
export function expectRpcError(answer: unknown, code: ErrorCode, correlationId?: string | null): asserts answer is RpcErrorEnvelope {
  const envelope = answer as RpcErrorEnvelope | undefined;
  if (!envelope?.error) throw new Error(`expected ${code}, got ${JSON.stringify(answer)}`);
  expect(envelope.jsonrpc).toBe('2.0');
  expect(envelope).not.toHaveProperty('result');
  expect(typeof envelope.error.code).toBe('number');
  expect(typeof envelope.error.message).toBe('string');
  expect(envelope.error.data.code).toBe(code);
  expect(envelope.error.data.details).toBeTypeOf('object');
  expect(envelope.error.data.details).not.toBeNull();
  expect(typeof envelope.error.data.retryable).toBe('boolean');
  expect(typeof envelope.error.data.correlation_id).toBe('string');
  if (correlationId) expect(envelope.error.data.correlation_id).toBe(correlationId);
}

export interface RpcErrorEnvelope {
  jsonrpc: '2.0';
  id: string | number | null;
  error: RpcErrorObject;
}

/** A stack trace looks like "at fn (file:line:col)" lines or a ".ts:12" reference. */
export function expectNoStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at\s/);
  expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  expect(text).not.toMatch(/\.(ts|js|mjs):\d+/);
}

/** Error details as the API tests read them: issues for INVALID_PARAMS, resource and id for NOT_FOUND, and so on. */
export interface ErrorDetails {
  issues?: { path: string; message: string; code?: string }[];
  [member: string]: unknown;
}

/** The error a contract method answers with (it must fail): its code, details and message. */
export async function errorOf(
  server: Pick<TestServer, 'rpcUnchecked'>,
  method: MethodName,
  params: unknown,
): Promise<{ code: string; details: ErrorDetails; message: string }> {
  const res = await server.rpcUnchecked(method, params);
  if (!res.error) throw new Error(`${method} ${JSON.stringify(params)} should fail, answered ${JSON.stringify(res.result)}`);
  return { code: res.error.data.code, details: res.error.data.details, message: res.error.message };
}

/** The list methods that page with next_cursor, and the member that holds each one's records. */
export const LIST_MEMBER = {
  'event.list': 'events',
  'mailbox.list': 'items',
  'conversation.list': 'conversations',
  'agent.list': 'agents',
  'runtime.incidents': 'incidents',
  'runtime.incident_logs': 'logs',
  'operation.list': 'operations',
} as const satisfies Partial<Record<MethodName, string>>;
export type ListMethod = keyof typeof LIST_MEMBER;
export type ListRecord<M extends ListMethod> = Result<M>[(typeof LIST_MEMBER)[M] & keyof Result<M>] extends readonly (infer R)[] ? R : never;

/** Walks every page of a list method, returning all records and the number of pages. */
export async function walk<M extends ListMethod>(
  server: Pick<TestServer, 'rpc'>,
  method: M,
  params: ParamsInput<M>,
  between?: () => Promise<void>,
): Promise<{ items: ListRecord<M>[]; pages: number }> {
  const items: ListRecord<M>[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 1000; pages++) {
    const result = (await ok(server, method, { ...params, ...(cursor ? { cursor } : {}) })) as Result<M> & { next_cursor?: string };
    items.push(...(result as unknown as Record<string, ListRecord<M>[]>)[LIST_MEMBER[method]]!);
    if (!result.next_cursor) return { items, pages };
    cursor = result.next_cursor;
    if (between) await between();
  }
  throw new Error('walk did not end');
}
