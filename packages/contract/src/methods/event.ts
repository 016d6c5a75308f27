import { z } from 'zod';
import { defineMethod } from '../method';
import { runStatus, storedEvent, timestampParam } from '../records';
import { idempotencyKey, nextCursor, pageCursor, pageLimit } from './common';
import { MAX_ENTITY_ID_LENGTH } from '../limits';

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
});

export const eventList = defineMethod({
  name: 'event.list',
  summary: 'Canonical event store query, newest first, with deliveries and dead letters nested.',
  description:
    'Dead-letter inspection is folded in through filter.has_dead_letter and filter.reason_code. Filters combine with AND: subscriber_id keeps events with a delivery to that subscriber; reason_code keeps events with a delivery or a dead letter carrying that reason code. next_cursor is bound to the filter, since and until (not limit).',
  params: z.strictObject({
    filter: eventFilter.optional(),
    since: timestampParam.optional().describe('inclusive lower bound on created_at'),
    until: timestampParam.optional().describe('exclusive upper bound on created_at'),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ events: z.array(storedEvent), next_cursor: nextCursor }),
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

export const runStart = defineMethod({
  name: 'run.start',
  summary: 'Deprecated wrapper over event.publish, kept for older callers.',
  params: z.strictObject(publishParams),
  result: publishResult,
  errors: publishErrors,
  scope: 'events:publish',
  mutating: true,
  deprecated: true,
});
