/**
 * HTTP side of the console's API client: JSON-RPC calls typed by the contract package, plus the
 * browser sign-in routes. Only types come from the contract (`import type`), so zod never reaches
 * the bundle; the server validates every call anyway.
 */
import type { AuthConfig, MethodName, ParamsInput, Result, RpcErrorData, SignOutAnswer } from '@switchboard/contract';
import type { Role, Scope } from '@switchboard/contract/roles';

/** A failed call, normalised: JSON-RPC errors, HTTP failures and network failures all end up here. */
export class ApiError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;
  readonly correlationId?: string;
  readonly method?: string;
  constructor(code: string, message: string, opts: { details?: Record<string, unknown>; retryable?: boolean; correlationId?: string; method?: string } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = opts.details ?? {};
    this.retryable = opts.retryable ?? false;
    this.correlationId = opts.correlationId;
    this.method = opts.method;
  }
}

/** Code for "the server could not be reached at all" (not a server code; the console's own). */
export const NETWORK_ERROR = 'NETWORK_ERROR';

type Listener = () => void;
const unauthenticatedListeners = new Set<Listener>();

/** Called when any call comes back 401, so the shell can drop the session and show sign-in. */
export function onUnauthenticated(listener: Listener): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

const forbiddenListeners = new Set<Listener>();

/** Called when a call is refused with FORBIDDEN: the role may have changed, so the shell reads the session again. */
export function onForbidden(listener: Listener): () => void {
  forbiddenListeners.add(listener);
  return () => forbiddenListeners.delete(listener);
}

let nextId = 1;

interface RpcEnvelope<R> {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: R;
  error?: { code: number; message: string; data?: RpcErrorData };
}

function errorFromEnvelope(method: string | undefined, error: NonNullable<RpcEnvelope<unknown>['error']>): ApiError {
  const data = error.data;
  return new ApiError(data?.code ?? 'INTERNAL', error.message, {
    details: data?.details,
    retryable: data?.retryable,
    correlationId: data?.correlation_id,
    method,
  });
}

async function postJson<R>(url: string, body: unknown, method?: string, signal?: AbortSignal): Promise<{ status: number; json: R | undefined }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(NETWORK_ERROR, 'The server could not be reached', { retryable: true, method });
  }
  let json: R | undefined;
  try {
    json = (await response.json()) as R;
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

/** Calls one JSON-RPC method over POST /v1/rpc with the session cookie. */
export async function rpc<M extends MethodName>(method: M, params: ParamsInput<M>, signal?: AbortSignal): Promise<Result<M>> {
  const id = `web-${nextId++}`;
  const { status, json } = await postJson<RpcEnvelope<Result<M>>>('/v1/rpc', { jsonrpc: '2.0', id, method, params }, method, signal);
  if (status === 401) unauthenticatedListeners.forEach((l) => l());
  if (json?.error) {
    const error = errorFromEnvelope(method, json.error);
    if (error.code === 'FORBIDDEN') forbiddenListeners.forEach((l) => l());
    throw error;
  }
  if (!json || !('result' in json)) {
    throw new ApiError(status >= 500 ? 'INTERNAL' : 'INVALID_RESPONSE', `Unexpected response from the server (HTTP ${status})`, {
      retryable: status >= 500,
      method,
    });
  }
  return json.result as Result<M>;
}

/** Who is signed in, as GET /v1/auth/session answers: the token, its person, and what it may do. */
export interface SessionInfo {
  token: { id: string; name: string };
  user: { id: string; display_name: string; role: Role };
  scopes: Scope[];
  via: 'cookie' | 'bearer';
  /** Where trace ids link to (a URL with `{trace_id}`), when the server is configured with one. */
  trace_url_template?: string;
}

/** The current browser session, or null when signed out. Network failures throw. */
export async function fetchSession(): Promise<SessionInfo | null> {
  let response: Response;
  try {
    response = await fetch('/v1/auth/session', { credentials: 'same-origin' });
  } catch {
    throw new ApiError(NETWORK_ERROR, 'The server could not be reached', { retryable: true });
  }
  if (response.status === 401) return null;
  if (!response.ok) throw new ApiError('INTERNAL', `Could not read the session (HTTP ${response.status})`, { retryable: true });
  return (await response.json()) as SessionInfo;
}

/** Trades a pasted token for the httpOnly session cookie. */
export async function signIn(token: string): Promise<SessionInfo['token']> {
  const { json } = await postJson<{ ok?: boolean; token?: SessionInfo['token'] } & RpcEnvelope<never>>('/v1/auth/login', { token: token.trim() });
  if (json?.error) throw errorFromEnvelope(undefined, json.error);
  if (!json?.token) throw new ApiError('INTERNAL', 'Sign-in failed: unexpected response from the server');
  return json.token;
}

/** Ends the session; for a single sign-on session, the answer may name the provider's sign-out page. */
export async function signOut(): Promise<SignOutAnswer | undefined> {
  const { json } = await postJson<SignOutAnswer>('/v1/auth/logout', {});
  return json;
}

/** How this server lets people sign in (read before sign-in). */
export async function fetchAuthConfig(): Promise<AuthConfig> {
  let response: Response;
  try {
    response = await fetch('/v1/auth/config', { credentials: 'same-origin' });
  } catch {
    throw new ApiError(NETWORK_ERROR, 'The server could not be reached', { retryable: true });
  }
  if (!response.ok) throw new ApiError('INTERNAL', `Could not read the sign-in options (HTTP ${response.status})`, { retryable: true });
  return (await response.json()) as AuthConfig;
}
