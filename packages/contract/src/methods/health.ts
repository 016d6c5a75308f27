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
  mutating: false,
});

export const healthCheck = defineMethod({
  name: 'health.check',
  summary: 'Runtime health with per-component checks; heartbeat notifications carry this shape.',
  params: emptyParams,
  result: healthCheckResult,
  errors: [],
  mutating: false,
});

export const healthSubscribe = defineMethod({
  name: 'health.subscribe',
  summary: 'Starts a heartbeat subscription on the WebSocket (/v1/ws only).',
  description:
    'The server then sends health.heartbeat notifications {subscription_id, result: health.check result} at once and every interval.',
  params: emptyParams,
  result: z.object({ subscription_id: z.string() }),
  errors: [],
  mutating: false,
  websocketOnly: true,
});

export const healthUnsubscribe = defineMethod({
  name: 'health.unsubscribe',
  summary: 'Ends one heartbeat subscription on this WebSocket (/v1/ws only).',
  params: z.strictObject({ subscription_id: z.string().min(1) }),
  result: z.object({ ok: z.boolean() }),
  errors: ['NOT_FOUND'],
  mutating: false,
  websocketOnly: true,
});

/** Shape of the notification frames sent on /v1/ws for a heartbeat subscription. */
export const heartbeatNotification = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.literal('health.heartbeat'),
  params: z.object({ subscription_id: z.string(), result: healthCheckResult }),
});
