/** Small HTTP helpers shared by the API tests: raw posts and the error-shape checks every error must pass. */
import { expect } from 'vitest';
import type { TestServer } from './harness';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, or undefined when the body is empty. */
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

/** The v1 error shape: numeric code, message, data.{code, details, retryable, correlation_id}. */
export function expectRpcError(envelope: any, code: string, correlationId?: string | null): void {
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

/** A stack trace looks like "at fn (file:line:col)" lines or a ".ts:12" reference. */
export function expectNoStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at\s/);
  expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  expect(text).not.toMatch(/\.(ts|js|mjs):\d+/);
}
