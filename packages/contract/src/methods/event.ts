/**
 * Events: the canonical query, publishing, and (additive in v1) recovery - redrive dead letters and
 * replay events, each estimated by a dry run and applied as a durable background operation that
 * operation.get, operation.list and operation.cancel read and stop.
 */
import { z } from 'zod';
import { defineMethod } from '../method';
import { operation, operationKind, runStatus, storedEvent, timestamp, timestampParam } from '../records';
import { idempotencyKey, nextCursor, pageCursor, pageLimit, payloadConditions, payloadSearchReport } from './common';
import { DEFAULT_OPERATION_RATE, MAX_OPERATION_RATE, MAX_ENTITY_ID_LENGTH } from '../limits';

/** The event.list filter, shared with redrive and replay so they select what the list shows. */
export const eventFilter = z.strictObject({
  entity_id: z.string().min(1).optional(),
  event_name: z.string().min(1).optional(),
  event_name_prefix: z.string().min(1).max(200).optional().describe('additive: events whose name starts with this ("refund" finds refund.approved and refund.paid)'),
  has_dead_letter: z.boolean().optional(),
  reason_code: z.string().min(1).optional(),
  run_id: z.string().min(1).optional(),
  subscriber_id: z.string().min(1).optional(),
  event_id: z.string().min(1).optional().describe('additive: one event by id'),
  dead_letter_redriven: z
    .boolean()
    .optional()
    .describe('additive: false keeps events with a dead letter not yet redriven, true events with one already redriven'),
  payload: payloadConditions.optional(),
});

export const eventList = defineMethod({
  name: 'event.list',
  summary: 'Canonical event store query, newest first, with deliveries and dead letters nested.',
  description:
    'Dead-letter inspection is folded in through filter.has_dead_letter and filter.reason_code. Filters combine with AND: subscriber_id keeps events with a delivery to that subscriber; reason_code keeps events with a delivery or a dead letter carrying that reason code. next_cursor is bound to the filter, since and until (not limit). filter.payload holds conditions on the payload (docs/payload-search.md): an eq or in on a field the bundle declares indexed is served by an index; any other search looks at a bounded number of events per page (payload_search.scan_limited), so a page may be short, or empty, and still have a next_cursor.',
  params: z.strictObject({
    filter: eventFilter.optional(),
    since: timestampParam.optional().describe('inclusive lower bound on created_at'),
    until: timestampParam.optional().describe('exclusive upper bound on created_at'),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ events: z.array(storedEvent), next_cursor: nextCursor, payload_search: payloadSearchReport.optional() }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const bundleRef = z.strictObject({ fingerprint: z.string().min(1) });

const publishParams = {
  event_name: z.string().min(1),
  payload: z.record(z.string(), z.unknown()).optional().describe('default {}; validated against the catalog schema'),
  entity_id: z.string().min(1).max(MAX_ENTITY_ID_LENGTH).optional(),
  bundle_ref: bundleRef.optional(),
  idempotency_key: idempotencyKey,
};

const publishResult = z.object({
  run_id: z.string(),
  status: runStatus.describe('running, or queued while ingress is paused'),
  event_id: z.string().optional().describe('additive: the injected event'),
});

const publishErrors = [
  'UNKNOWN_EVENT',
  'BUNDLE_MISMATCH',
  'RESET_IN_PROGRESS',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_IN_PROGRESS',
] as const;

export const eventPublish = defineMethod({
  name: 'event.publish',
  summary: 'Publishes an event into the runtime bus, starting a run.',
  params: z.strictObject(publishParams),
  result: publishResult,
  errors: publishErrors,
  scope: 'events:publish',
  mutating: true,
});

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
