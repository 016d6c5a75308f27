import { z } from 'zod';
import { defineMethod } from '../method';
import { healthCheckResult, timestamp } from '../records';
import { emptyParams } from './common';

export const healthPing = defineMethod({
  name: 'health.ping',
  summary: 'Cheap aliveness check; always succeeds while the runtime is responsive.',
  params: emptyParams,
  result: z.object({ ok: z.boolean(), ts: timestamp }),
  errors: [],
  scope: 'heartbeat',
  mutating: false,
});

export const healthCheck = defineMethod({
  name: 'health.check',
  summary: 'Runtime health with per-component checks; heartbeat notifications carry this shape.',
  params: emptyParams,
  result: healthCheckResult,
  errors: [],
  scope: 'heartbeat',
  mutating: false,
});

export const healthSubscribe = defineMethod({
  name: 'health.subscribe',
  summary: 'Starts a heartbeat subscription on the WebSocket (/v1/ws only).',
  description:
    'The server then sends health.heartbeat notifications {subscription_id, result: health.check result} at once and every interval. ' +
    'A socket holding at least one subscription also receives, from whichever server made them: runtime.changed {seq, kinds} when stored ' +
    'records changed (at most one per socket about every 100 ms, kinds merged; a hint to read again, carrying no records; kinds: ' +
    'events, deliveries, runs, mailbox, ingress, agents, operations, incidents, tokens, reset), and runtime.reset ' +
    '{reset_id, status, finished_at, reason?, actor_token_id?} once a runtime reset was applied.',
  params: emptyParams,
  result: z.object({ subscription_id: z.string() }),
  errors: [],
  scope: 'heartbeat',
  mutating: false,
  websocketOnly: true,
});

export const healthUnsubscribe = defineMethod({
  name: 'health.unsubscribe',
  summary: 'Ends one heartbeat subscription on this WebSocket (/v1/ws only).',
  params: z.strictObject({ subscription_id: z.string().min(1) }),
  result: z.object({ ok: z.boolean() }),
  errors: ['NOT_FOUND'],
  scope: 'heartbeat',
  mutating: false,
  websocketOnly: true,
});

/** Shape of the notification frames sent on /v1/ws for a heartbeat subscription. */
export const heartbeatNotification = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.literal('health.heartbeat'),
  params: z.object({ subscription_id: z.string(), result: healthCheckResult }),
});

/**
 * What a change in the store touched: the kinds a `runtime.changed` notification carries and the
 * store's change feed records (one row per transaction, its kinds merged).
 */
export const CHANGE_KINDS = ['events', 'deliveries', 'runs', 'mailbox', 'ingress', 'agents', 'operations', 'incidents', 'tokens', 'reset', 'alerts'] as const;
export const changeKind = z.enum(CHANGE_KINDS);
export type ChangeKind = z.output<typeof changeKind>;

/**
 * Sent on /v1/ws to every socket holding a heartbeat subscription when stored records changed on
 * any server: a hint to read again (it carries no records). `seq` is the newest change it covers.
 */
export const runtimeChangedNotification = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.literal('runtime.changed'),
  params: z.object({ seq: z.number().int().nonnegative(), kinds: z.array(changeKind).min(1) }),
});

/** Sent on /v1/ws to every socket holding a heartbeat subscription, on every server, once a runtime reset was applied. */
export const runtimeResetNotification = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.literal('runtime.reset'),
  params: z.object({
    reset_id: z.string(),
    status: z.string(),
    finished_at: z.string(),
    reason: z.string().optional(),
    actor_token_id: z.string().optional(),
  }),
});
