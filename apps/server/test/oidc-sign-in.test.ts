/**
 * Signing in with OpenID Connect against a real provider (oidc-provider, started here), walked
 * through its own login form: people are created with the role their groups map to, refused
 * without the required group or a role, refused when disabled or when the state was tampered
 * with, and signed out of Switchboard with the provider's end-session URL to go to next.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_ERROR_PARAM } from '@switchboard/contract';
import { SignInWalker, startOidcProvider, type TestOidcProvider } from '../../../e2e/oidc-provider';
import { CONSOLE_TOKEN_NAME } from '../src/http/oidc/sign-in';
import { startTestServer, type TestServer } from './harness';
import { freePort, runServerToExit } from './server-process';

let provider: TestOidcProvider;
let server: TestServer;

beforeAll(async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider({ switchboardUrls: [url] });
  server = await startTestServer({ env: { PORT: String(port), ...provider.switchboardEnv(url) } });
});

afterAll(async () => {
  await server?.close();
  await provider?.close();
});

async function sessionOf(walker: SignInWalker): Promise<Response> {
  return fetch(`${server.url}/v1/auth/session`, { headers: { cookie: walker.sessionCookie ?? '' } });
}

const subjectOf = (login: string) => `${provider.issuer} ${login}`;

describe('signing in with OpenID Connect', () => {
  it('tells the console that single sign-on is on, before sign-in', async () => {
    const res = await fetch(`${server.url}/v1/auth/config`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ oidc: { start_url: '/v1/auth/oidc/start', button_label: 'Sign in with single sign-on' } });
  });

  it('creates the person at their first sign-in with the role their group maps to, and reuses them after', async () => {
    const walker = new SignInWalker(server.url);
    const landed = await walker.signIn('rita', { returnTo: '/mailbox?state=pending' });
    expect(landed.pathname + landed.search).toBe('/mailbox?state=pending');
    expect(walker.sessionCookie).toBeDefined();

    const session = await sessionOf(walker);
    expect(session.status).toBe(200);
    const body = (await session.json()) as { user: { id: string; display_name: string; role: string }; token: { name: string }; scopes: string[]; via: string };
    expect(body.user).toMatchObject({ display_name: 'Rita Reviewer', role: 'reviewer' });
    expect(body.token.name).toBe(CONSOLE_TOKEN_NAME);
    expect(body.scopes).toContain('mailbox:decide');
    expect(body.scopes).not.toContain('events:redrive');
    expect(body.via).toBe('cookie');

    const rita = await server.store.users.findByOidcSubject(subjectOf('rita'));
    expect(rita).toMatchObject({ id: body.user.id, email: 'rita@example.test', role: 'reviewer', disabled: false });

    // A second sign-in: the same person and the same console token, a new session.
    const again = new SignInWalker(server.url);
    await again.signIn('rita');
    expect(again.sessionCookie).not.toBe(walker.sessionCookie);
    const ritas = (await server.store.users.list()).filter((u) => u.oidc_subject === subjectOf('rita'));
    expect(ritas).toHaveLength(1);
    const tokens = await server.store.tokens.list({ userId: body.user.id });
    expect(tokens.map((t) => t.name)).toEqual([CONSOLE_TOKEN_NAME]);
  });

  it('takes the role from the provider at every sign-in', async () => {
    provider.accounts.oscar!.groups = ['switchboard', 'sb-reviewers'];
    const first = new SignInWalker(server.url);
    await first.signIn('oscar');
    expect((await server.store.users.findByOidcSubject(subjectOf('oscar')))?.role).toBe('reviewer');

    provider.accounts.oscar!.groups = ['switchboard', 'sb-reviewers', 'sb-operators'];
    const second = new SignInWalker(server.url);
    await second.signIn('oscar');
    const oscar = await server.store.users.findByOidcSubject(subjectOf('oscar'));
    expect(oscar?.role).toBe('operator');
    const session = (await (await sessionOf(second)).json()) as { user: { role: string } };
    expect(session.user.role).toBe('operator');
  });

  it('refuses a person without the required group: back to sign-in with the reason, nobody created', async () => {
    const walker = new SignInWalker(server.url);
    const landed = await walker.signIn('mallory');
    expect(landed.pathname).toBe('/');
    expect(landed.searchParams.get(SIGN_IN_ERROR_PARAM)).toBe('not_allowed');
    expect(walker.sessionCookie).toBeUndefined();
    expect(await server.store.users.findByOidcSubject(subjectOf('mallory'))).toBeUndefined();
    expect(server.logs.some((l) => l.msg === 'OpenID Connect sign-in refused' && l.reason === 'not_allowed')).toBe(true);
  });

  it('refuses a person none of whose groups maps to a role', async () => {
    const walker = new SignInWalker(server.url);
    const landed = await walker.signIn('nora', { returnTo: '/incidents' });
    expect(landed.pathname).toBe('/incidents');
    expect(landed.searchParams.get(SIGN_IN_ERROR_PARAM)).toBe('no_role');
    expect(walker.sessionCookie).toBeUndefined();
    expect(await server.store.users.findByOidcSubject(subjectOf('nora'))).toBeUndefined();
  });

  it('refuses a callback whose state is not the one this browser started with', async () => {
    const walker = new SignInWalker(server.url);
    const landed = await walker.signIn('ada', {
      beforeCallback: (callback) => {
        const forged = new URL(callback);
        forged.searchParams.set('state', 'forged-state-of-another-sign-in');
        return forged;
      },
    });
    expect(landed.searchParams.get(SIGN_IN_ERROR_PARAM)).toBe('expired');
    expect(walker.sessionCookie).toBeUndefined();
    expect(await server.store.users.findByOidcSubject(subjectOf('ada'))).toBeUndefined();
  });

  it('refuses a callback replayed without the browser that started it', async () => {
    let callback: URL | undefined;
    const walker = new SignInWalker(server.url);
    await walker.signIn('ada', { beforeCallback: (url) => (callback = url) });
    expect(walker.sessionCookie).toBeDefined();
    // Another browser (no flow cookie) presents the same code and state.
    const replay = await fetch(callback!, { redirect: 'manual' });
    expect(replay.status).toBe(302);
    expect(new URL(replay.headers.get('location')!, server.url).searchParams.get(SIGN_IN_ERROR_PARAM)).toBe('expired');
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('sb_session=') && !c.startsWith('sb_session=;'))).toBe(false);
  });

  it('refuses a person an administrator disabled, whatever the provider says', async () => {
    const walker = new SignInWalker(server.url);
    await walker.signIn('ada');
    const ada = await server.store.users.findByOidcSubject(subjectOf('ada'));
    expect(ada?.role).toBe('admin');
    await server.store.users.update(ada!.id, { disabled: true });

    // The session already open stops working, and a new sign-in is refused.
    expect((await sessionOf(walker)).status).toBe(401);
    const again = new SignInWalker(server.url);
    const landed = await again.signIn('ada');
    expect(landed.searchParams.get(SIGN_IN_ERROR_PARAM)).toBe('user_disabled');
    expect(again.sessionCookie).toBeUndefined();
    await server.store.users.update(ada!.id, { disabled: false });
  });

  it('refuses a sign-in that would demote the last enabled admin, and keeps them admin', async () => {
    provider.accounts.ada!.groups = ['switchboard', 'sb-admins'];
    await new SignInWalker(server.url).signIn('ada');
    const ada = (await server.store.users.findByOidcSubject(subjectOf('ada')))!;
    // Every other admin (the test token's person) disabled: ada is the last one.
    const others = (await server.store.users.list()).filter((u) => u.role === 'admin' && !u.disabled && u.id !== ada.id);
    for (const u of others) await server.store.users.update(u.id, { disabled: true });
    try {
      provider.accounts.ada!.groups = ['switchboard', 'sb-operators'];
      const walker = new SignInWalker(server.url);
      const landed = await walker.signIn('ada');
      expect(landed.searchParams.get(SIGN_IN_ERROR_PARAM)).toBe('last_admin');
      expect(walker.sessionCookie).toBeUndefined();
      expect((await server.store.users.get(ada.id))?.role).toBe('admin');
    } finally {
      for (const u of others) await server.store.users.update(u.id, { disabled: false });
      provider.accounts.ada!.groups = ['switchboard', 'sb-admins'];
    }
  });

  it("signs out: the session ends and the answer names the provider's end-session URL", async () => {
    const walker = new SignInWalker(server.url);
    await walker.signIn('rita');
    expect((await sessionOf(walker)).status).toBe(200);
    const cookieBefore = walker.sessionCookie!;

    const res = await walker.fetch(`${server.url}/v1/auth/logout`, { method: 'POST', headers: { origin: server.url, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { ok: boolean; end_session_url?: string };
    expect(answer.ok).toBe(true);
    const end = new URL(answer.end_session_url!);
    expect(end.origin).toBe(provider.issuer);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${server.url}/`);
    expect(end.searchParams.get('client_id')).toBe('switchboard-console');
    expect(end.searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect(walker.sessionCookie).toBeUndefined();

    // The old cookie, kept by someone, no longer opens anything.
    const stale = await fetch(`${server.url}/v1/auth/session`, { headers: { cookie: cookieBefore } });
    expect(stale.status).toBe(401);
  });

  it('a person signed in with a pasted token signs out without an end-session URL', async () => {
    const login = await fetch(`${server.url}/v1/auth/login`, {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: server.token }),
    });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const res = await fetch(`${server.url}/v1/auth/logout`, { method: 'POST', headers: { origin: server.url, cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(await res.json()).toEqual({ ok: true });
  });
});

describe('a server whose OpenID provider cannot be found at start', () => {
  it('says which issuer and why in one line, and exits 2', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const started = runServerToExit({
      SWITCHBOARD_DATA_DIR: `/tmp/switchboard-oidc-unreachable-${port}`,
      SWITCHBOARD_OIDC_ISSUER: issuer,
      SWITCHBOARD_OIDC_CLIENT_ID: 'switchboard',
      SWITCHBOARD_OIDC_CLIENT_SECRET: 'a-secret-never-printed',
      SWITCHBOARD_OIDC_REDIRECT_URL: 'http://127.0.0.1:8787/v1/auth/oidc/callback',
      SWITCHBOARD_OIDC_ROLE_MAP: 'sb-admins=admin',
    });
    expect(started.status).toBe(2);
    const lines = started.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(`switchboard: cannot discover the OpenID Connect issuer ${issuer}: `)).toBe(true);
    expect(lines[0]).toMatch(/ECONNREFUSED/);
    expect(lines[0]!.endsWith('(SWITCHBOARD_OIDC_ISSUER)')).toBe(true);
    expect(started.stderr).not.toContain('a-secret-never-printed');
  });
});
