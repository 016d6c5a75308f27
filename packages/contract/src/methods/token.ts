/**
 * Access tokens (additive in v1): the tokens that act for a user (user.ts), never their secrets
 * after creation. Administration needs the users:admin scope (the admin role).
 */
import { z } from 'zod';
import { scope } from '../access';
import { defineMethod } from '../method';
import { timestamp } from '../records';
import { idempotencyKey } from './common';
import { userId } from './user';

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
  summary: 'Revokes a token; its requests and browser sessions are refused from the next request on every server.',
  params: z.strictObject({ token_id: z.string().min(1).max(100), idempotency_key: idempotencyKey }),
  result: z.object({ token: accessToken, already_revoked: z.boolean() }),
  errors: ['NOT_FOUND'],
  scope: 'users:admin',
  mutating: true,
});
