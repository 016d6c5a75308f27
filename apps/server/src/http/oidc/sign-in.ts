/**
 * Signing in with OpenID Connect: authorization code with PKCE, then the same session cookie a
 * pasted token gets. The provider is the source of truth for an OIDC person's role: it is read from
 * their claims on every sign-in, so a change of groups at the provider applies at the next sign-in
 * (and a role an administrator set in Switchboard is replaced then).
 *
 * The flow's secrets (state, nonce, PKCE verifier) travel in a short-lived httpOnly cookie rather
 * than in this process's memory, so the callback may land on any server of a shared database.
 */
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as client from 'openid-client';
import { SIGN_IN_ERROR_PARAM, type AuthConfig, type SignInErrorCode } from '@switchboard/contract';
import { LastAdminError, type Store, type UserRecord, type VerifiedToken } from '@switchboard/store';
import { OIDC_CALLBACK_PATH, type OidcConfig } from '../../config';
import { actorOf, type AuditTrail } from '../../audit/audit-trail';
import type { Logger } from '../../logger';
import type { Principal } from '../../rpc/handler';
import type { AppEnv } from '../app-env';
import { SESSION_TTL_MS, principalOf } from '../authenticate';
import { protocolOf } from '../middleware/require-auth';
import { setSessionCookie } from '../session-cookie';
import { decideAccess, displayNameOf, emailOf, type Claims } from './claims';

export const OIDC_START_PATH = '/v1/auth/oidc/start';
/** The token every OIDC person's console sessions are bound to; its secret is never shown to anyone. */
export const CONSOLE_TOKEN_NAME = 'console (OpenID Connect)';

const FLOW_COOKIE = 'sb_oidc_flow';
/** Time to get through the provider's login page. */
const FLOW_TTL_S = 10 * 60;
/** The ID token, kept only to tell the provider whose session to end at sign-out. */
const ID_TOKEN_COOKIE = 'sb_oidc_id';
const LOGOUT_PATH = '/v1/auth/logout';

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  /** The console path to open after sign-in (a deep link the visitor came with). */
  returnTo: string;
}

type SignInOutcome = { ok: true; principal: Principal; idToken: string | undefined } | { ok: false; code: SignInErrorCode; detail: string };

export interface OidcSignInDeps {
  config: OidcConfig;
  client: client.Configuration;
  store: Store;
  logger: Logger;
  /** Sign-ins and refusals go to the audit trail (channel console). */
  audit: AuditTrail;
}

/** A console path of this origin: never another host (`//evil`, `/\evil`) nor an API route. */
function consolePath(value: string | undefined): string {
  const controlCharacter = [...value ?? ''].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
  if (!value || value.length > 2048 || !/^\/(?![/\\])/.test(value) || controlCharacter || value.startsWith('/v1/')) return '/';
  return value;
}

function withSignInError(returnTo: string, code: SignInErrorCode): string {
  const url = new URL(returnTo, 'http://console.invalid');
  url.searchParams.set(SIGN_IN_ERROR_PARAM, code);
  return url.pathname + url.search + url.hash;
}

function encodeFlow(flow: Flow): string {
  return Buffer.from(JSON.stringify(flow)).toString('base64url');
}

function decodeFlow(value: string | undefined): Flow | undefined {
  if (!value) return undefined;
  try {
    const flow = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Flow>;
    const fields = [flow.state, flow.nonce, flow.verifier, flow.returnTo];
    return fields.every((f) => typeof f === 'string' && f.length > 0) ? (flow as Flow) : undefined;
  } catch {
    return undefined;
  }
}

export class OidcSignIn {
  /** The issuer as the provider names itself; with `sub`, a person's `oidc_subject`. */
  readonly issuer: string;

  constructor(private readonly deps: OidcSignInDeps) {
    this.issuer = deps.client.serverMetadata().issuer;
  }

  authConfig(): NonNullable<AuthConfig['oidc']> {
    return { start_url: OIDC_START_PATH, button_label: this.deps.config.buttonLabel };
  }

  /** GET /start and GET /callback, mounted under /v1/auth/oidc. */
  routes(): Hono<AppEnv> {
    const routes = new Hono<AppEnv>();
    routes.get('/start', (c) => this.start(c));
    routes.get('/callback', (c) => this.callback(c));
    return routes;
  }

  private async start(c: Context<AppEnv>): Promise<Response> {
    const { config } = this.deps;
    const redirect = new URL(config.redirectUrl);
    // The flow cookie is set on this host and read on the callback's: they must be the same.
    if (c.req.header('host') !== redirect.host) {
      this.deps.logger.warn('OpenID Connect sign-in started on another host than SWITCHBOARD_OIDC_REDIRECT_URL; it will fail', {
        host: c.req.header('host'),
        redirect_host: redirect.host,
      });
    }
    const flow: Flow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      returnTo: consolePath(c.req.query('return_to')),
    };
    const target = client.buildAuthorizationUrl(this.deps.client, {
      redirect_uri: config.redirectUrl,
      scope: config.scopes,
      response_type: 'code',
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
    });
    // Lax, not Strict: the callback is a navigation coming from the provider's site.
    setCookie(c, FLOW_COOKIE, encodeFlow(flow), {
      httpOnly: true,
      sameSite: 'Lax',
      path: OIDC_CALLBACK_PATH,
      secure: protocolOf(c) === 'https',
      maxAge: FLOW_TTL_S,
    });
    c.header('Cache-Control', 'no-store');
    return c.redirect(target.href, 302);
  }

  private async callback(c: Context<AppEnv>): Promise<Response> {
    const flow = decodeFlow(getCookie(c, FLOW_COOKIE));
    // One use: a replayed callback finds no flow.
    deleteCookie(c, FLOW_COOKIE, { path: OIDC_CALLBACK_PATH, secure: protocolOf(c) === 'https' });
    c.header('Cache-Control', 'no-store');
    const returnTo = flow?.returnTo ?? '/';
    let outcome: SignInOutcome;
    try {
      outcome = await this.complete(c, flow);
    } catch (err) {
      // A browser navigation: back to the sign-in with a reason, not a JSON error page.
      this.deps.logger.error('OpenID Connect sign-in failed', { correlation_id: c.get('correlationId'), error: (err as Error).message });
      outcome = { ok: false, code: 'failed', detail: 'the sign-in could not be recorded' };
    }
    if (!outcome.ok) {
      c.set('authFailure', `OpenID Connect sign-in refused (${outcome.code}): ${outcome.detail}`);
      this.deps.logger.warn('OpenID Connect sign-in refused', { correlation_id: c.get('correlationId'), reason: outcome.code, detail: outcome.detail });
      await this.recordQuietly(c, { method: 'auth.sign_in_failed', params: { via: 'oidc', reason: outcome.code }, outcome: 'UNAUTHENTICATED' });
      return c.redirect(withSignInError(returnTo, outcome.code), 302);
    }
    const { principal } = outcome;
    const session = await this.deps.store.webSessions.create(principal.tokenId, SESSION_TTL_MS);
    setSessionCookie(c, session);
    if (outcome.idToken) {
      setCookie(c, ID_TOKEN_COOKIE, outcome.idToken, {
        httpOnly: true,
        sameSite: 'Strict',
        path: LOGOUT_PATH,
        secure: protocolOf(c) === 'https',
        expires: session.expiresAt,
      });
    }
    c.set('principal', principal);
    this.deps.logger.info('signed in with OpenID Connect', { correlation_id: c.get('correlationId'), user_id: principal.userId, role: principal.role });
    await this.recordQuietly(c, { actor: actorOf(principal), method: 'auth.sign_in', params: { via: 'oidc', role: principal.role }, outcome: 'ok' });
    return c.redirect(returnTo, 302);
  }

  /** A sign-in is not undone because its audit record could not be written; the log says so. */
  private async recordQuietly(c: Context<AppEnv>, fact: { actor?: ReturnType<typeof actorOf>; method: string; params: Record<string, unknown>; outcome: string }): Promise<void> {
    await this.deps.audit.recordQuietly({ ...fact, channel: 'console', correlationId: c.get('correlationId') }, (error) =>
      this.deps.logger.error('audit record not written', { correlation_id: c.get('correlationId'), method: fact.method, error: (error as Error).message }),
    );
  }

  /** Checks the provider's answer against the flow, then finds or creates the person. */
  private async complete(c: Context<AppEnv>, flow: Flow | undefined): Promise<SignInOutcome> {
    const query = new URL(c.req.url).searchParams;
    const providerError = query.get('error');
    if (providerError) {
      return { ok: false, code: 'provider_refused', detail: `${providerError}${query.get('error_description') ? `: ${query.get('error_description')}` : ''}`.slice(0, 300) };
    }
    if (!flow) return { ok: false, code: 'expired', detail: 'no sign-in in progress in this browser (expired, or started elsewhere)' };
    if (query.get('state') !== flow.state) return { ok: false, code: 'expired', detail: 'state does not match the sign-in this browser started' };

    let claims: Claims;
    let idToken: string | undefined;
    try {
      // The redirect URI as registered (a proxy in front may show this process another URL).
      const currentUrl = new URL(this.deps.config.redirectUrl);
      currentUrl.search = query.toString();
      const tokens = await client.authorizationCodeGrant(this.deps.client, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      idToken = tokens.id_token;
      claims = await this.withUserInfo(claims, tokens.access_token);
    } catch (err) {
      return { ok: false, code: 'failed', detail: (err as Error).message.slice(0, 300) };
    }

    const access = decideAccess(claims, this.deps.config);
    if (!access.ok) return { ok: false, code: access.reason, detail: access.detail };

    const subject = `${this.issuer} ${String(claims.sub)}`;
    const user = await this.findOrCreateUser(subject, claims, access.role);
    if (user.disabled) return { ok: false, code: 'user_disabled', detail: `${user.id} is disabled` };
    if (user.role !== access.role) {
      try {
        await this.deps.store.users.update(user.id, { role: access.role });
      } catch (err) {
        if (err instanceof LastAdminError) return { ok: false, code: 'last_admin', detail: `${user.id} is the last enabled admin; the provider grants ${access.role}` };
        throw err;
      }
    }
    const token = await this.consoleToken(user.id);
    const principal = token && principalOf(token, 'cookie');
    if (!principal) return { ok: false, code: 'user_disabled', detail: `${user.id} cannot act (disabled meanwhile)` };
    return { ok: true, principal, idToken };
  }

  /** Claims the ID token lacks (providers often put groups only in userinfo) are read from userinfo. */
  private async withUserInfo(claims: Claims, accessToken: string): Promise<Claims> {
    const { roleClaim, requiredClaim } = this.deps.config;
    const wanted = [roleClaim, requiredClaim?.name, 'name', 'email'].filter((n): n is string => n !== undefined);
    if (wanted.every((n) => n in claims) || !this.deps.client.serverMetadata().userinfo_endpoint) return claims;
    const info = await client.fetchUserInfo(this.deps.client, accessToken, String(claims.sub));
    // The ID token's own claims win: it is signed, userinfo is only fetched over TLS.
    return { ...info, ...claims };
  }

  private async findOrCreateUser(subject: string, claims: Claims, role: UserRecord['role']): Promise<UserRecord> {
    const { users } = this.deps.store;
    const known = await users.findByOidcSubject(subject);
    if (known) return known;
    try {
      return await users.create({ display_name: displayNameOf(claims), email: emailOf(claims), role, oidc_subject: subject });
    } catch (err) {
      // The same person's first sign-in in two tabs at once: the unique subject let one create.
      const created = await users.findByOidcSubject(subject);
      if (created) return created;
      throw err;
    }
  }

  /** The person's console token, created at their first sign-in (or after an admin revoked it). */
  private async consoleToken(userId: string): Promise<VerifiedToken | undefined> {
    const { tokens } = this.deps.store;
    const existing = (await tokens.list({ userId, includeRevoked: false })).find((t) => t.name === CONSOLE_TOKEN_NAME);
    const tokenId = existing?.id ?? (await tokens.create(CONSOLE_TOKEN_NAME, { userId })).token.id;
    return tokens.findActiveById(tokenId);
  }

  /**
   * At sign-out of an OIDC person's session: the provider's end-session URL (when it has one), so
   * the console can end the provider's session too. Clears the ID token cookie either way.
   */
  async endSessionUrl(c: Context<AppEnv>, sessionSecret: string): Promise<string | undefined> {
    const idToken = getCookie(c, ID_TOKEN_COOKIE);
    if (idToken) deleteCookie(c, ID_TOKEN_COOKIE, { path: LOGOUT_PATH, secure: protocolOf(c) === 'https' });
    const endpoint = this.deps.client.serverMetadata().end_session_endpoint;
    if (!endpoint) return undefined;
    const tokenId = await this.deps.store.webSessions.resolve(sessionSecret);
    const token = tokenId ? await this.deps.store.tokens.findActiveById(tokenId) : undefined;
    if (!token?.user.oidc_subject?.startsWith(`${this.issuer} `)) return undefined;
    const parameters: Record<string, string> = {
      client_id: this.deps.config.clientId,
      post_logout_redirect_uri: new URL('/', this.deps.config.redirectUrl).href,
    };
    if (idToken) parameters.id_token_hint = idToken;
    return client.buildEndSessionUrl(this.deps.client, parameters).href;
  }
}
