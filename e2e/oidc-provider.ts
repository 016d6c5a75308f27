/**
 * A real OpenID provider (the `oidc-provider` package) for tests, on a free port of this machine,
 * with the provider's own development login form: any password is accepted, the login names the
 * account. Used by the server tests (vitest) and the e2e specs (Playwright) alike.
 *
 * The issuer is `http://localhost:<port>` while Switchboard runs on `http://127.0.0.1:<port>`: two
 * different sites to the browser, as a real provider and console are, so the sign-in crosses sites
 * (SameSite cookies behave as in production).
 *
 * Consent is granted without asking (a first-party client, as company providers are set up), so a
 * sign-in is: the login form, then back to Switchboard.
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export interface TestAccount {
  name: string;
  email: string;
  groups: string[];
}

/** Every account but mallory is in the `switchboard` group that OIDC_TEST_ENV requires. */
export const TEST_ACCOUNTS: Record<string, TestAccount> = {
  rita: { name: 'Rita Reviewer', email: 'rita@example.test', groups: ['switchboard', 'sb-reviewers'] },
  oscar: { name: 'Oscar Operator', email: 'oscar@example.test', groups: ['switchboard', 'sb-operators'] },
  ada: { name: 'Ada Admin', email: 'ada@example.test', groups: ['switchboard', 'sb-admins'] },
  /** Holds an operator group but not the group that grants access to Switchboard at all. */
  mallory: { name: 'Mallory Outsider', email: 'mallory@example.test', groups: ['sb-operators'] },
  /** In the switchboard group without any group that maps to a role. */
  nora: { name: 'Nora Noroles', email: 'nora@example.test', groups: ['switchboard'] },
};

export const TEST_CLIENT_ID = 'switchboard-console';
export const TEST_CLIENT_SECRET = 'switchboard-console-test-secret';

export interface TestOidcProvider {
  issuer: string;
  port: number;
  /** The accounts, by login; change one's groups and its next sign-in carries them. */
  accounts: Record<string, TestAccount>;
  /** SWITCHBOARD_OIDC_* for a Switchboard at `switchboardUrl` using this provider. */
  switchboardEnv(switchboardUrl: string): Record<string, string>;
  close(): Promise<void>;
}

export interface TestOidcProviderOptions {
  /** Origins of the Switchboard servers that will sign in here (their callback and sign-out return). */
  switchboardUrls: string[];
  accounts?: Record<string, TestAccount>;
}

const CLAIMS_BY_SCOPE = { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'], groups: ['groups'] };

/** Role mapping and sign-in restriction the tests use with the accounts above. */
export const OIDC_TEST_RULES = {
  SWITCHBOARD_OIDC_SCOPES: 'openid profile email groups',
  SWITCHBOARD_OIDC_ROLE_CLAIM: 'groups',
  SWITCHBOARD_OIDC_ROLE_MAP: 'sb-admins=admin,sb-operators=operator,sb-reviewers=reviewer',
  SWITCHBOARD_OIDC_REQUIRED_CLAIM: 'groups=switchboard',
};

export async function startOidcProvider(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
  const accounts = structuredClone(options.accounts ?? TEST_ACCOUNTS);
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://localhost:${port}`;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

  const configuration: Configuration = {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: options.switchboardUrls.map((url) => `${url}/v1/auth/oidc/callback`),
        post_logout_redirect_uris: options.switchboardUrls.map((url) => `${url}/`),
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test-signing-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['switchboard-oidc-test-cookie-key'] },
    claims: CLAIMS_BY_SCOPE,
    scopes: Object.keys(CLAIMS_BY_SCOPE),
    pkce: { required: () => true },
    // Set so the provider does not print a notice for each default it falls back to.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    async findAccount(_ctx, id) {
      const account = accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, name: account.name, preferred_username: id, email: account.email, email_verified: true, groups: [...account.groups] }),
      };
    },
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      if (!oidc.client || !oidc.session?.accountId) return undefined;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
      if (grantId) return oidc.provider.Grant.find(grantId);
      const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
      grant.addOIDCScope(Object.keys(CLAIMS_BY_SCOPE).join(' '));
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  server.on('request', provider.callback());

  return {
    issuer,
    port,
    accounts,
    switchboardEnv: (switchboardUrl) => ({
      SWITCHBOARD_OIDC_ISSUER: issuer,
      SWITCHBOARD_OIDC_CLIENT_ID: TEST_CLIENT_ID,
      SWITCHBOARD_OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      SWITCHBOARD_OIDC_REDIRECT_URL: `${switchboardUrl}/v1/auth/oidc/callback`,
      ...OIDC_TEST_RULES,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A browser without a browser, for API tests: follows redirects, keeps cookies per host, and fills
 * the provider's login form. (The e2e specs use Chromium instead.)
 */
export class SignInWalker {
  /** hostname -> cookie name -> value (ports are not part of a cookie's site, as in a browser). */
  private readonly jar = new Map<string, Map<string, string>>();

  constructor(private readonly switchboardUrl: string) {}

  /** The Switchboard session cookie, when this walker holds one. */
  get sessionCookie(): string | undefined {
    const value = this.jar.get(new URL(this.switchboardUrl).hostname)?.get('sb_session');
    return value === undefined ? undefined : `sb_session=${value}`;
  }

  /** Every cookie this walker would send to `url` ("name=value; ..."). */
  cookieHeader(url: string): string {
    return [...(this.jar.get(new URL(url).hostname) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.keepCookies(url, response);
    return response;
  }

  /**
   * Starts a sign-in at Switchboard, signs in at the provider as `login`, and follows the way back
   * to where Switchboard sends the browser in the end (returned, not opened). `beforeCallback` may
   * change the callback URL on its way (to play an attacker).
   */
  async signIn(login: string, options: { returnTo?: string; beforeCallback?: (callback: URL) => URL } = {}): Promise<URL> {
    const start = new URL('/v1/auth/oidc/start', this.switchboardUrl);
    if (options.returnTo) start.searchParams.set('return_to', options.returnTo);
    let url = start.href;
    for (let hop = 0; hop < 20; hop++) {
      const target = new URL(url);
      if (target.origin === new URL(this.switchboardUrl).origin && target.pathname === '/v1/auth/oidc/callback' && options.beforeCallback) {
        url = options.beforeCallback(target).href;
        options = { ...options, beforeCallback: undefined };
      }
      const response = await this.fetch(url);
      const location = response.headers.get('location');
      if (location) {
        const next = new URL(location, url);
        await response.body?.cancel();
        // Back at the console (not an API route): the browser would open this page.
        if (next.origin === new URL(this.switchboardUrl).origin && !next.pathname.startsWith('/v1/')) return next;
        url = next.href;
        continue;
      }
      const html = await response.text();
      const form = /<form[^>]*action="([^"]+)"[^>]*method="post"[\s\S]*?name="prompt" value="login"/i.exec(html);
      if (!form) throw new Error(`sign-in stopped at ${url} (HTTP ${response.status}): ${html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)}`);
      const submitted = await this.fetch(new URL(form[1]!.replace(/&amp;/g, '&'), url).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login, password: 'any password' }).toString(),
      });
      await submitted.body?.cancel();
      const next = submitted.headers.get('location');
      if (!next) throw new Error(`the provider's login form answered HTTP ${submitted.status} without a redirect`);
      url = new URL(next, url).href;
    }
    throw new Error('sign-in did not come back to Switchboard within 20 redirects');
  }

  private keepCookies(url: string, response: Response): void {
    const host = new URL(url).hostname;
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    this.jar.set(host, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = '', v = ''] = a.trim().split('=');
        return (key.toLowerCase() === 'max-age' && Number(v) <= 0) || (key.toLowerCase() === 'expires' && Date.parse(v) <= Date.now());
      });
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  }
}
