/**
 * The audit trail (additive in v1): every mutating call, sign-in and sign-out, administration and
 * every refused call, as a hash chain. Payloads and secrets are never stored, only their hashes.
 */
import { z } from 'zod';
import { defineMethod } from '../method';
import { timestamp, timestampParam } from '../records';
import { nextCursor, pageCursor, pageLimit } from './common';

export const auditChannel = z.enum(['api', 'console', 'cli']);

export const auditRecord = z.object({
  seq: z.number().int().describe('position in the chain, from 1'),
  at: timestamp.describe('database clock'),
  user_id: z.string().optional(),
  user_name: z.string().optional().describe('the display name when the record was written'),
  token_id: z.string().optional(),
  channel: auditChannel,
  server_id: z.string(),
  method: z.string().describe('an RPC method, or auth.sign_in, auth.sign_out, auth.sign_in_failed, ws.upgrade, cli.*'),
  target_ids: z.array(z.string()),
  params_summary: z.record(z.string(), z.unknown()).describe('ids, counts and flags; payloads and secrets only as sha256 hashes'),
  outcome: z.string().describe('ok, or the error code'),
  correlation_id: z.string().optional(),
  hash: z.string(),
  prev_hash: z.string(),
});

export const auditList = defineMethod({
  name: 'audit.list',
  summary: 'Audit records, newest first, with filters; keyset pages.',
  params: z.strictObject({
    actor: z.string().min(1).max(100).optional().describe('a user id or token id'),
    method: z.string().min(1).max(100).optional(),
    target_id: z.string().min(1).max(200).optional(),
    outcome: z.string().min(1).max(100).optional().describe('ok, error (any error), or one error code'),
    since: timestampParam.optional().describe('inclusive'),
    until: timestampParam.optional().describe('exclusive'),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ items: z.array(auditRecord), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'audit:read',
  mutating: false,
});
