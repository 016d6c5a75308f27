/**
 * People and their tokens (additive in v1): users with a role, and the tokens that act for them.
 * Administration needs the users:admin scope (the admin role).
 */
import { z } from 'zod';
import { role, scope } from '../access';
import { defineMethod } from '../method';
import { timestamp } from '../records';
import { idempotencyKey } from './common';

export const userId = z.string().min(1).max(100);
const displayName = z.string().trim().min(1).max(100);
const email = z.email().max(320);

export const user = z.object({
  id: z.string(),
  display_name: z.string(),
  email: z.string().optional(),
  role,
  disabled: z.boolean(),
  created_at: timestamp,
  last_seen_at: timestamp.optional(),
  sign_in: z.enum(['token', 'oidc']).describe('how this person signs in to the console: a pasted token, or OpenID Connect'),
});

export type User = z.infer<typeof user>;

export const accessToken = z.object({
  id: z.string(),
  name: z.string(),
  user_id: z.string(),
  prefix: z.string().describe('the first characters of the secret, to recognise it; never the secret'),
  scopes: z.array(scope).optional().describe("present when the token is narrowed to these scopes (within its user's role)"),
  created_at: timestamp,
  last_used_at: timestamp.optional(),
  revoked_at: timestamp.optional(),
});

export type AccessToken = z.infer<typeof accessToken>;

export const userList = defineMethod({
  name: 'user.list',
  summary: 'Lists the people who can use this runtime, with their role.',
  params: z.strictObject({ include_disabled: z.boolean().optional().describe('default true') }),
  result: z.object({ items: z.array(user) }),
  errors: [],
  scope: 'users:admin',
  mutating: false,
});

export const userCreate = defineMethod({
  name: 'user.create',
  summary: 'Adds a person with a role; give them a token with token.create (or let them sign in with OpenID Connect).',
  params: z.strictObject({ display_name: displayName, email: email.optional(), role, idempotency_key: idempotencyKey }),
  result: z.object({ user }),
  errors: [],
  scope: 'users:admin',
  mutating: true,
});

export const userUpdate = defineMethod({
  name: 'user.update',
  summary: "Changes a person's role, name or email, or disables them; applies to their next request on every node.",
  description: 'A disabled person cannot sign in and none of their tokens work; enabling them again restores the tokens not revoked. The last enabled admin cannot be demoted or disabled.',
  params: z.strictObject({
    user_id: userId,
    role: role.optional(),
    disabled: z.boolean().optional(),
    display_name: displayName.optional(),
    email: email.nullable().optional().describe('null removes the email'),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({ user }),
  errors: ['NOT_FOUND'],
  scope: 'users:admin',
  mutating: true,
});

export const tokenList = defineMethod({
  name: 'token.list',
  summary: 'Lists access tokens (never their secrets), all or one person’s.',
  params: z.strictObject({ user_id: userId.optional(), include_revoked: z.boolean().optional().describe('default true') }),
  result: z.object({ items: z.array(accessToken) }),
  errors: [],
  scope: 'users:admin',
  mutating: false,
});

export const tokenCreate = defineMethod({
  name: 'token.create',
  summary: 'Creates a token for a person; the secret is in this answer only and cannot be read back.',
  description: 'scopes narrows the token below its user’s role (a service account that only publishes, a scraper that only reads); a scope the role lacks is never granted. A replay of the same idempotency_key does not return the secret again.',
  params: z.strictObject({
    user_id: userId,
    name: z.string().trim().min(1).max(100),
    scopes: z.array(scope).min(1).max(20).optional(),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({
    token: accessToken,
    secret: z.string().optional().describe('the secret, shown once; absent on an idempotent replay'),
  }),
  errors: ['NOT_FOUND'],
  scope: 'users:admin',
  mutating: true,
});

export const tokenRevoke = defineMethod({
  name: 'token.revoke',
  summary: 'Revokes a token; its requests and browser sessions are refused from the next request on every node.',
  params: z.strictObject({ token_id: z.string().min(1).max(100), idempotency_key: idempotencyKey }),
  result: z.object({ token: accessToken, already_revoked: z.boolean() }),
  errors: ['NOT_FOUND'],
  scope: 'users:admin',
  mutating: true,
});
