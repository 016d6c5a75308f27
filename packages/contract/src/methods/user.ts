/**
 * People (additive in v1): users with a role; token.ts holds the tokens that act for them.
 * Administration needs the users:admin scope (the admin role).
 */
import { z } from 'zod';
import { role } from '../access';
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
  summary: "Changes a person's role, name or email, or disables them; applies to their next request on every server.",
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
