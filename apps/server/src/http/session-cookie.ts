import type { Context } from 'hono';
import { setCookie } from 'hono/cookie';
import type { AppEnv } from './app-env';
import { SESSION_COOKIE } from './authenticate';
import { protocolOf } from './middleware/require-auth';

/**
 * The console's session: httpOnly (scripts never see it) and SameSite=Strict (no other site's page
 * can make the browser send it), the same whether a pasted token or single sign-on opened it.
 */
export function setSessionCookie(c: Context<AppEnv>, session: { secret: string; expiresAt: Date }): void {
  setCookie(c, SESSION_COOKIE, session.secret, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: protocolOf(c) === 'https',
    expires: session.expiresAt,
  });
}
