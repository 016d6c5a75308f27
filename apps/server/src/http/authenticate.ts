/**
 * Bearer-token and session-cookie authentication, shared by HTTP routes and the WebSocket upgrade.
 * Cookie-authenticated calls must come from our own origin: a browser attaches the cookie to
 * cross-site requests and upgrades too, so the Origin check is what stops CSRF and hijacking.
 */
import type { Store } from '@switchboard/store';
import type { Principal } from '../rpc/handler';

export const SESSION_COOKIE = 'sb_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface AuthInput {
  authorization?: string | null;
  cookie?: string | null;
  origin?: string | null;
  host?: string | null;
  /** "http" or "https" as the client sees it. */
  protocol: string;
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

export async function authenticate(store: Store, input: AuthInput): Promise<AuthOutcome> {
  const header = input.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return { ok: false, reason: 'malformed Authorization header; expected "Bearer <token>"' };
    const token = await store.tokens.verify(match[1]!);
    if (!token) return { ok: false, reason: 'unknown or revoked token' };
    void store.tokens.touch(token.id).catch(() => undefined);
    return { ok: true, principal: { tokenId: token.id, tokenName: token.name, via: 'bearer' } };
  }
  const session = readCookie(input.cookie, SESSION_COOKIE);
  if (session) {
    if (!isSameOrigin(input)) return { ok: false, reason: 'session cookie used from another origin' };
    const tokenId = await store.webSessions.resolve(session);
    if (!tokenId) return { ok: false, reason: 'session expired or its token was revoked' };
    const token = await store.tokens.findActiveById(tokenId);
    if (!token) return { ok: false, reason: 'session expired or its token was revoked' };
    return { ok: true, principal: { tokenId: token.id, tokenName: token.name, via: 'cookie' } };
  }
  return { ok: false, reason: 'missing access token' };
}
