/**
 * Bearer-token and session-cookie authentication, shared by HTTP routes and the WebSocket upgrade.
 * Cookie-authenticated calls must come from our own origin: a browser attaches the cookie to
 * cross-site requests and upgrades too, so the Origin check is what stops CSRF and hijacking.
 */
import { effectiveScopes, isRole } from '@switchboard/contract';
import type { Store, TokenRecord, VerifiedToken } from '@switchboard/store';
import type { Principal } from '../rpc/handler';

export const SESSION_COOKIE = 'sb_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const LAST_USED_PRECISION_MS = 60 * 1000;

export interface AuthInput {
  authorization?: string | null;
  cookie?: string | null;
  origin?: string | null;
  host?: string | null;
  /** "http" or "https" as the client sees it. */
  protocol: string;
  /**
   * GET/HEAD outside a WebSocket upgrade. Browsers omit Origin on same-origin GETs, so for these a
   * missing Origin is accepted unless Sec-Fetch-Site says the request is cross-site; they change
   * nothing, and cross-origin reads are blocked by the browser anyway.
   */
  safeMethod?: boolean;
  /** The Sec-Fetch-Site request header, when the browser sent one. */
  fetchSite?: string | null;
}

export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; reason: string };

export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function isSameOrigin(input: Pick<AuthInput, 'origin' | 'host' | 'protocol'>): boolean {
  if (!input.origin || !input.host) return false;
  try {
    const origin = new URL(input.origin);
    return origin.host === input.host && origin.protocol === `${input.protocol}:`;
  } catch {
    return false;
  }
}

/**
 * last_used_at is for operators ("is this token still in use?"); minute precision is plenty, and
 * skipping the write keeps a durable (fsync'd) update off the path of nearly every request.
 */
function noteUse(store: Store, token: TokenRecord): void {
  const lastUsed = token.last_used_at ? Date.parse(token.last_used_at) : 0;
  // The person was seen when their token was used: one write a minute for both.
  if (store.clock.now().getTime() - lastUsed >= LAST_USED_PRECISION_MS) void store.tokens.touch(token.id, token.user_id).catch(() => undefined);
}

function cookieOriginAllowed(input: AuthInput): boolean {
  if (input.origin) return isSameOrigin(input);
  return input.safeMethod === true && (!input.fetchSite || input.fetchSite === 'same-origin' || input.fetchSite === 'none');
}

/**
 * Principals already made, by verified token: the store hands out the same token object until the
 * token or its user may have changed, and a principal is read, never changed, so each request
 * with that token need not parse its scopes and build their set again.
 */
const principalsByToken = new WeakMap<VerifiedToken, Partial<Record<Principal['via'], Principal>>>();

/** The principal a verified token stands for; undefined when its person may not act (disabled, unknown role). */
export function principalOf(token: VerifiedToken, via: Principal['via']): Principal | undefined {
  const made = principalsByToken.get(token);
  const known = made?.[via];
  if (known) return known;
  const principal = newPrincipal(token, via);
  if (principal) {
    if (made) made[via] = principal;
    else principalsByToken.set(token, { [via]: principal });
  }
  return principal;
}

function newPrincipal(token: VerifiedToken, via: Principal['via']): Principal | undefined {
  const { user } = token;
  if (user.disabled || !isRole(user.role)) return undefined;
  const narrowed = token.scopes ? (JSON.parse(token.scopes) as string[]) : null;
  return {
    tokenId: token.id,
    tokenName: token.name,
    userId: user.id,
    userName: user.display_name,
    role: user.role,
    scopes: new Set(effectiveScopes(user.role, narrowed)),
    via,
  };
}

export async function authenticate(store: Store, input: AuthInput): Promise<AuthOutcome> {
  const header = input.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return { ok: false, reason: 'malformed Authorization header; expected "Bearer <token>"' };
    const token = await store.tokens.verify(match[1]!);
    if (!token) return { ok: false, reason: 'unknown or revoked token' };
    const principal = principalOf(token, 'bearer');
    if (!principal) return { ok: false, reason: 'the token belongs to a disabled user' };
    noteUse(store, token);
    return { ok: true, principal };
  }
  const session = readCookie(input.cookie, SESSION_COOKIE);
  if (session) {
    if (!cookieOriginAllowed(input)) return { ok: false, reason: 'session cookie used from another origin' };
    const tokenId = await store.webSessions.resolve(session);
    if (!tokenId) return { ok: false, reason: 'session expired or its token was revoked' };
    const token = await store.tokens.findActiveById(tokenId);
    if (!token) return { ok: false, reason: 'session expired or its token was revoked' };
    const principal = principalOf(token, 'cookie');
    if (!principal) return { ok: false, reason: 'the session belongs to a disabled user' };
    noteUse(store, token);
    return { ok: true, principal };
  }
  return { ok: false, reason: 'missing access token' };
}
