import { z } from 'zod';
import { defineMethod } from '../method';
import { run, timestamp } from '../records';
import { eventPublish } from './event';

export const runGet = defineMethod({
  name: 'run.get',
  summary: 'One run: status, root event and counts.',
  params: z.strictObject({ run_id: z.string().min(1) }),
  result: z.object({ run }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const runTree = defineMethod({
  name: 'run.tree',
  summary: 'Additive: everything that happened in a run, for its causal tree: events (with parent_event_id and source), their deliveries and dead letters, agent turns and mailbox items.',
  description:
    'An event emitted by a subscriber has parent_event_id = the event it handled and source = "<type>:<subscriber id>"; an event emitted by a mailbox approval has source "mailbox:<mailbox id>". Turns attach to their trigger event and session; mailbox items to their source event. At most 1000 events (truncated says so), oldest first.',
  params: z.strictObject({ run_id: z.string().min(1) }),
  result: z.object({
    run,
    events: z.array(
      z.object({
        event_id: z.string(),
        event_name: z.string(),
        created_at: timestamp,
        source: z.string(),
        chain_depth: z.number().int(),
        parent_event_id: z.string().optional(),
        replay_of_event_id: z.string().optional(),
      }),
    ),
    deliveries: z.array(
      z.object({
        delivery_id: z.string(),
        event_id: z.string(),
        subscriber_id: z.string(),
        subscriber_type: z.enum(['node', 'agent']),
        status: z.string(),
        attempts: z.number().int(),
        updated_at: timestamp,
        reason_code: z.string().optional(),
        last_error: z.string().optional(),
        session_id: z.string().optional(),
        redrive_of_dead_letter_id: z.string().optional(),
      }),
    ),
    dead_letters: z.array(
      z.object({ dead_letter_id: z.string(), event_id: z.string(), created_at: timestamp, delivery_id: z.string().optional(), subscriber_id: z.string().optional(), reason_code: z.string().optional() }),
    ),
    turns: z.array(
      z.object({
        turn_id: z.string(),
        session_id: z.string(),
        agent_id: z.string(),
        trigger_event_id: z.string(),
        parse_ok: z.boolean(),
        latency_ms: z.number().int(),
        started_at: timestamp.optional(),
        error: z.string().optional(),
      }),
    ),
    mailbox_items: z.array(
      z.object({
        mailbox_id: z.string(),
        type: z.string(),
        status: z.string(),
        created_at: timestamp,
        source_event_id: z.string().optional(),
        decided_at: timestamp.optional(),
        emitted_event_id: z.string().optional(),
      }),
    ),
    truncated: z.boolean(),
    replays: z
      .array(z.object({ event_id: z.string(), run_id: z.string().optional(), replay_of_event_id: z.string() }))
      .optional()
      .describe("additive: events replays published of this run's events, each in a run of its own"),
  }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const runStart = defineMethod({
  name: 'run.start',
  summary: 'Deprecated wrapper over event.publish, kept for older callers.',
  params: eventPublish.params,
  result: eventPublish.result,
  errors: eventPublish.errors,
  scope: 'events:publish',
  mutating: true,
  deprecated: true,
});
