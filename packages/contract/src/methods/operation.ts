/**
 * Recovery (additive in v1): redrive dead letters and replay events, each estimated by a dry run
 * and applied as a durable background operation that can be read, listed and cancelled.
 */
import { z } from 'zod';
import { defineMethod } from '../method';
import { operation, operationItem, operationKind, operationStatus, timestamp, timestampParam } from '../records';
import { idempotencyKey, nextCursor, pageCursor, pageLimit } from './common';
import { eventFilter } from './event';
import { DEFAULT_OPERATION_RATE, MAX_OPERATION_RATE } from '../limits';


const count = z.number().int();

const selectionParams = {
  filter: eventFilter.optional().describe('the event.list filter; events are selected exactly as event.list selects them'),
  since: timestampParam.optional().describe('inclusive lower bound on the event created_at'),
  until: timestampParam.optional().describe('exclusive upper bound on the event created_at'),
  subscriber_ids: z.array(z.string().min(1)).min(1).max(100).optional().describe('only these subscribers'),
};

const applyParams = {
  dry_run: z.boolean({ error: 'dry_run is required: true to estimate, false to apply' }).describe('required: true estimates and changes nothing; false applies'),
  expected_plan_hash: z
    .string()
    .min(1)
    .optional()
    .describe('required when dry_run is false: the plan_hash of the estimate; refused with PLAN_STALE when the matching set changed'),
  rate_per_second: z
    .number()
    .min(0.1)
    .max(MAX_OPERATION_RATE)
    .optional()
    .describe(`items sent per second, default ${DEFAULT_OPERATION_RATE}`),
  stop_after_failures: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('pause the operation (status paused) once this many of its items failed or their deliveries dead-lettered again; unset: never pause'),
  idempotency_key: idempotencyKey,
};

const sampleItem = z.object({
  target_id: z.string(),
  event_id: z.string(),
  event_name: z.string(),
  created_at: timestamp,
  subscriber_id: z.string().optional(),
  reason_code: z.string().optional(),
  error_message: z.string().optional(),
});

export const operationPlan = z.object({
  kind: operationKind,
  plan_hash: z.string().describe('identifies the exact set of items an apply sends'),
  matched: count.describe('dead letters (redrive) or events (replay) the selection matches'),
  already_redriven: count.describe('redrive: matching dead letters redriven before; they are not sent again'),
  to_send: count.describe('items an apply sends'),
  deliveries: count.describe('deliveries an apply creates'),
  by_subscriber: z.array(z.object({ subscriber_id: z.string(), count })),
  by_reason_code: z.array(z.object({ reason_code: z.string(), count })).describe('redrive: dead letters by reason code'),
  by_event_name: z.array(z.object({ event_name: z.string(), count })),
  oldest: timestamp.optional(),
  newest: timestamp.optional(),
  sample: z.array(sampleItem).describe('up to 10 items, newest first'),
  side_effect_subscribers: z
    .array(z.string())
    .optional()
    .describe('additive, replay: subscribers of the matching events that the bundle marks side_effects (sent to only when named in subscriber_ids or when none are named)'),
  entity_revisions: z
    .array(z.object({ event_id: z.string(), entity_id: z.string(), revision_then: z.number().int(), revision_now: z.number().int().nullable() }))
    .optional()
    .describe("additive, replay: for the sampled events with an entity, its revision once the event was handled and now (null: the entity is gone); now > then means it moved on"),
});

const applyResult = z.object({
  dry_run: z.boolean(),
  plan: operationPlan,
  operation: operation.optional().describe('present when applied'),
});

const applyErrors = ['PLAN_STALE', 'RESET_IN_PROGRESS', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'] as const;

export const eventRedrive = defineMethod({
  name: 'event.redrive',
  summary: 'Additive: sends dead-lettered deliveries again, estimated by a dry run, applied as a background operation at a capped rate.',
  description:
    'Selects dead letters of the events event.list selects with the same filter; filter.subscriber_id and filter.reason_code apply to the dead letter itself, dead_letter_ids narrows to those ids. A dead letter is redriven at most once: the new delivery starts from attempt 1 and links back to the dead letter, which records when, by which token and in which operation it was redriven.',
  params: z.strictObject({
    ...selectionParams,
    dead_letter_ids: z.array(z.string().min(1)).min(1).max(1000).optional().describe('only these dead letters'),
    ...applyParams,
  }),
  result: applyResult,
  errors: applyErrors,
  scope: 'events:redrive',
  mutating: true,
});

export const eventReplay = defineMethod({
  name: 'event.replay',
  summary: 'Additive: publishes selected events again to their subscribers (all, or the named ones), each in a new run, estimated first.',
  description:
    'Selects events exactly as event.list does with the same filter, failed or not. Each replayed event carries replay_of_event_id. Replays wait while ingress is paused.',
  params: z.strictObject({
    ...selectionParams,
    event_ids: z.array(z.string().min(1)).min(1).max(1000).optional().describe('only these events'),
    ...applyParams,
  }),
  result: applyResult,
  errors: applyErrors,
  scope: 'events:redrive',
  mutating: true,
});

export const eventReplays = defineMethod({
  name: 'event.replays',
  summary: 'Additive: the events a replay published of one event ("Replayed as …"), oldest first, at most 100.',
  params: z.strictObject({ event_id: z.string().min(1) }),
  result: z.object({ replays: z.array(z.object({ event_id: z.string(), run_id: z.string().optional(), created_at: timestamp })) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const operationGet = defineMethod({
  name: 'operation.get',
  summary: 'Additive: one redrive or replay operation, with its progress and the items it acted on.',
  params: z.strictObject({
    operation_id: z.string().min(1),
    items_limit: z.number().int().min(0).max(500).optional().describe('items returned, in order, default 50'),
  }),
  result: z.object({ operation, items: z.array(operationItem) }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const operationList = defineMethod({
  name: 'operation.list',
  summary: 'Additive: redrive and replay operations, newest first.',
  params: z.strictObject({
    status: operationStatus.optional(),
    kind: operationKind.optional(),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ operations: z.array(operation), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const operationCancel = defineMethod({
  name: 'operation.cancel',
  summary: 'Additive: stops a running operation; what it already sent stays sent. A finished operation is returned unchanged.',
  params: z.strictObject({ operation_id: z.string().min(1), idempotency_key: idempotencyKey }),
  result: z.object({ operation, cancelled: z.boolean().describe('true when this call stopped it') }),
  errors: ['NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'events:redrive',
  mutating: true,
});

export const toolServer = z.object({
  name: z.string(),
  description: z.string().optional(),
  tools: z.array(z.string()),
  failure_rate: z.number().describe('share of calls that fail while faults are on'),
  timeout_rate: z.number().describe('share of calls that hang while faults are on'),
  faults: z.enum(['on', 'off']),
});

export const runtimeToolServers = defineMethod({
  name: 'runtime.tool_servers',
  summary: "Additive: the bundle's simulated tool servers and whether their faults are on.",
  params: z.strictObject({}),
  result: z.object({ tool_servers: z.array(toolServer) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const runtimeSetToolServerFaults = defineMethod({
  name: 'runtime.set_tool_server_faults',
  summary: "Additive: turns a simulated tool server's failures and hangs on or off (how an operator \"fixes\" a demo provider).",
  params: z.strictObject({ tool_server: z.string().min(1), faults: z.enum(['on', 'off']), idempotency_key: idempotencyKey }),
  result: z.object({ tool_server: toolServer }),
  errors: ['NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'tool_servers:faults',
  mutating: true,
});
