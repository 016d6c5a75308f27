/** SWITCHBOARD_OIDC_*: a complete configuration is read; a partial or wrong one names what is wrong. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

const complete = {
  SWITCHBOARD_OIDC_ISSUER: 'https://id.example.com/realms/main',
  SWITCHBOARD_OIDC_CLIENT_ID: 'switchboard',
  SWITCHBOARD_OIDC_CLIENT_SECRET: 'the-client-secret',
  SWITCHBOARD_OIDC_REDIRECT_URL: 'https://switchboard.example.com/v1/auth/oidc/callback',
  SWITCHBOARD_OIDC_ROLE_MAP: 'sb-admins=admin, sb-operators=operator,cn=sb=reviewer',
};

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected loadConfig to throw');
}

describe('OpenID Connect configuration', () => {
  it('is off when no SWITCHBOARD_OIDC_* variable is set', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
  });

  it('reads a complete configuration with its defaults', () => {
    const { oidc } = loadConfig(complete);
    expect(oidc).toMatchObject({
      issuer: complete.SWITCHBOARD_OIDC_ISSUER,
      clientId: 'switchboard',
      redirectUrl: complete.SWITCHBOARD_OIDC_REDIRECT_URL,
      scopes: 'openid profile email',
      roleClaim: 'groups',
      buttonLabel: 'Sign in with single sign-on',
    });
    // Split at each entry's last "=": a group name may hold one.
    expect([...oidc!.roleMap]).toEqual([
      ['sb-admins', 'admin'],
      ['sb-operators', 'operator'],
      ['cn=sb', 'reviewer'],
    ]);
    expect(oidc!.defaultRole).toBeUndefined();
    expect(oidc!.requiredClaim).toBeUndefined();
  });

  it('reads a JSON role map, a default role, a required claim and extra scopes (openid always among them)', () => {
    const { oidc } = loadConfig({
      ...complete,
      SWITCHBOARD_OIDC_ROLE_MAP: '{"cn=ops,ou=groups,dc=example": "operator"}',
      SWITCHBOARD_OIDC_DEFAULT_ROLE: 'viewer',
      SWITCHBOARD_OIDC_REQUIRED_CLAIM: 'groups=switchboard',
      SWITCHBOARD_OIDC_SCOPES: 'profile groups',
    });
    expect([...oidc!.roleMap]).toEqual([['cn=ops,ou=groups,dc=example', 'operator']]);
    expect(oidc).toMatchObject({ defaultRole: 'viewer', requiredClaim: { name: 'groups', value: 'switchboard' }, scopes: 'profile groups openid' });
  });

  it('names every missing variable of a partial configuration', () => {
    const message = errorOf({ SWITCHBOARD_OIDC_ISSUER: complete.SWITCHBOARD_OIDC_ISSUER });
    for (const name of ['SWITCHBOARD_OIDC_CLIENT_ID', 'SWITCHBOARD_OIDC_CLIENT_SECRET', 'SWITCHBOARD_OIDC_REDIRECT_URL', 'SWITCHBOARD_OIDC_ROLE_MAP']) {
      expect(message).toContain(`${name}: required`);
    }
  });

  it.each([
    ['SWITCHBOARD_OIDC_ISSUER', 'http://id.example.com', /must be an https URL/],
    ['SWITCHBOARD_OIDC_ISSUER', 'not a url', /must be a URL/],
    ['SWITCHBOARD_OIDC_REDIRECT_URL', 'https://switchboard.example.com/callback', /must end in \/v1\/auth\/oidc\/callback/],
    ['SWITCHBOARD_OIDC_ROLE_MAP', 'sb-admins=superuser', /role among viewer, reviewer, operator, admin/],
    ['SWITCHBOARD_OIDC_ROLE_MAP', '{"a": ', /not a JSON object/],
    ['SWITCHBOARD_OIDC_DEFAULT_ROLE', 'root', /must be one of viewer, reviewer, operator, admin/],
    ['SWITCHBOARD_OIDC_REQUIRED_CLAIM', 'groups', /must be claim=value/],
  ])('%s=%s is refused with a reason', (name, value, reason) => {
    const message = errorOf({ ...complete, [name]: value });
    expect(message).toMatch(new RegExp(`${name}: `));
    expect(message).toMatch(reason);
  });

  it('accepts http only for this machine (development and tests)', () => {
    expect(loadConfig({ ...complete, SWITCHBOARD_OIDC_ISSUER: 'http://localhost:9000' }).oidc?.issuer).toBe('http://localhost:9000');
    expect(loadConfig({ ...complete, SWITCHBOARD_OIDC_REDIRECT_URL: 'http://127.0.0.1:8787/v1/auth/oidc/callback' }).oidc?.redirectUrl).toBe(
      'http://127.0.0.1:8787/v1/auth/oidc/callback',
    );
  });
});
