/**
 * Record shapes of the Runtime Control API (spec: Resources and their fields). Enumerations list
 * every value Switchboard produces; the spec shows only samples.
 */
import { z } from 'zod';

export const timestamp = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time');
/**
 * A timestamp a caller sends: any UTC offset, normalised to the stored form (UTC, milliseconds,
 * `Z`) so that comparisons in the store, which are textual, compare instants.
 */
export const timestampParam = timestamp.transform((value) => new Date(value).toISOString()).describe('ISO 8601 date-time; any UTC offset');
const json = z.record(z.string(), z.unknown());

export const logLevel = z.enum(['debug', 'info', 'warn', 'error', 'fatal']);

export const incidentStateName = z.enum(['open', 'acknowledged', 'resolved', 'ignored']);

export const incident = z.object({
  incident_id: z.string(),
  component: z.string(),
  count: z.number().int(),
  first_seen: timestamp,
  last_seen: timestamp,
  level: logLevel.describe('highest level seen in the group'),
  sample_log_ids: z.array(z.string()),
  sample_message: z.string(),
  error_code: z.string().optional(),
  histogram: z
    .array(z.number().int())
    .optional()
    .describe('additive: occurrences per equal time bucket across the look-back window, oldest first'),
  state: incidentStateName.optional().describe('additive: open unless an operator acknowledged, resolved or ignored it'),
  regressed: z.boolean().optional().describe('additive: it was resolved and occurred again (state is open)'),
  state_changed_at: timestamp.optional(),
  state_changed_by: z.string().optional().describe('id of the token that last set the state'),
  ignore_until: timestamp.optional().describe('ignored until this time'),
  ignore_remaining: z.number().int().optional().describe('ignored until this many more occurrences'),
  trend: z.number().optional().describe("additive: occurrences in the window's last hour against its mean hourly rate (above 1 rising)"),
  subscriber_id: z.string().optional().describe('additive: the subscriber of a dead-letter incident (part of its group key: one incident per subscriber and reason)'),
  reason_code: z.string().optional().describe('additive: the reason code of a dead-letter incident (part of its group key)'),
  tool_server: z.string().optional().describe('additive: for an MCP tool server\'s component (mcp.<name>), that tool server\'s name (runtime.tool_servers)'),
});

export const incidentActivity = z.object({
  ts: timestamp,
  actor_token_id: z.string().describe('"runtime" for a regression'),
  actor_token_name: z.string().optional().describe("that token's name"),
  action: z.enum(['open', 'acknowledged', 'resolved', 'ignored', 'regressed']),
  note: z.string().optional(),
  ignore_until: timestamp.optional(),
  ignore_occurrences: z.number().int().optional(),
});

export const logRecord = z.object({
  log_id: z.string(),
  ts: timestamp,
  level: logLevel,
  component: z.string(),
  error_code: z.string().optional(),
  message: z.string(),
  event_id: z.string().optional(),
  run_id: z.string().optional(),
  delivery_id: z.string().optional(),
  dead_letter_id: z.string().optional(),
  entity_id: z.string().optional(),
  session_id: z.string().optional(),
});

export const mailboxStatus = z.enum(['pending', 'approved', 'rejected']);
export const mailboxPriority = z.enum(['low', 'normal', 'high', 'urgent']);

export const mailboxItem = z.object({
  mailbox_id: z.string(),
  created_at: timestamp,
  payload: json,
  priority: mailboxPriority,
  source_flow: z.string(),
  status: mailboxStatus,
  type: z.string(),
  decided_at: timestamp.optional(),
  decision: z.enum(['approved', 'rejected']).optional(),
  source_entity_id: z.string().optional(),
  source_event_id: z.string().optional(),
  reason_code: z.string().optional().describe('additive: a rejected item\'s reason code'),
});

export const mailboxHistoryEntry = z.object({
  action: z.enum(['created', 'approved', 'rejected']),
  actor_token_id: z.string().describe('id of the token that acted; "runtime" for items the runtime opened'),
  actor_token_name: z.string().optional().describe("additive: that token's name"),
  ts: timestamp,
  decision_payload: json.optional(),
  reason: z.string().optional(),
  reason_code: z.string().optional().describe('additive'),
  override_note: z.string().optional().describe("additive: an approval past failing gates: the operator's override note"),
  overridden_gates: z
    .array(z.object({ gate: z.string(), summary: z.string().optional(), detail: z.string().optional() }))
    .optional()
    .describe('additive: the gates that failed when that approval overrode them'),
});

/** One person's approval of a mailbox item (a type may need several, from different people). */
export const mailboxApproval = z.object({
  user_id: z.string(),
  user_name: z.string(),
  at: timestamp,
});

/**
 * Who may decide a mailbox type (from the bundle): `roles` and `user_ids` empty means every role
 * with mailbox decisions; otherwise a person with one of the roles or one of the user ids.
 */
export const mailboxDeciders = z.object({
  roles: z.array(z.string()),
  user_ids: z.array(z.string()),
  approvals_required: z.number().int().min(1),
});

export const subscriberSource = z.enum(['event_catalog']);

export const downstreamPreview = z.object({
  available: z.boolean(),
  subscriber_source: subscriberSource,
  subscribers: z.array(z.string()),
  event_name: z.string().optional(),
  reason: z.enum(['no_approval_route']).optional(),
});

export const entityRecord = z.object({
  entity_id: z.string(),
  entity_type: z.string(),
  current_state: z.string(),
  flow_instance: z.string(),
  revision: z.number().int(),
  run_id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  name: z.string().optional(),
  slug: z.string().optional(),
});

export const entityContext = z.object({
  available: z.boolean(),
  entity: z
    .object({
      accumulated: json,
      fields: json,
      gates: z.record(
        z.string(),
        z.object({
          passed: z.boolean(),
          detail: z.string().optional(),
          summary: z.string().optional().describe('additive: a failing gate in short, the value against its limit ("607.54 > 500")'),
        }),
      ),
      entity: entityRecord,
    })
    .optional(),
  reason: z.enum(['no_source_entity', 'entity_not_found']).optional(),
});

export const decisionSheet = z.object({
  downstream_preview: downstreamPreview,
  entity_context: entityContext,
});

export const conversationStatus = z.enum(['active', 'ended', 'failed']);

export const conversation = z.object({
  agent_id: z.string(),
  session_id: z.string(),
  started_at: timestamp,
  status: conversationStatus,
  message_count: z.number().int(),
  turn_count: z.number().int(),
  ended_at: timestamp.optional(),
  run_id: z.string().optional(),
});

export const toolCall = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  arguments: json,
  result: z.unknown().optional(),
  error: z.string().optional(),
  latency_ms: z.number().int().optional(),
});

export const turn = z.object({
  turn_id: z.string(),
  turn_index: z.number().int(),
  latency_ms: z.number().int(),
  parse_ok: z.boolean(),
  trigger_event_id: z.string(),
  trigger_event_type: z.string(),
  error: z.string().optional(),
  request_payload: json.optional(),
  response_payload: json.optional(),
  tool_calls: z.array(toolCall).optional(),
  turn_blocks: z.array(json).optional(),
  started_at: timestamp.optional(),
  completed_at: timestamp.optional(),
});

export const agentStatus = z.enum(['idle', 'busy', 'error']);

export const agent = z.object({
  agent_id: z.string(),
  type: z.string(),
  role: z.string(),
  model_tier: z.string(),
  conversation_mode: z.enum(['task', 'chat']),
  session_scope: z.enum(['global', 'run', 'entity']),
  status: agentStatus,
});

export const sessionRef = z.object({ session_id: z.string(), started_at: timestamp });
export const lastTurnRef = z.object({
  turn_id: z.string(),
  completed_at: timestamp,
  parse_ok: z.boolean(),
  error: z.string().optional(),
});

export const deliveryStatus = z.enum(['pending', 'in_progress', 'delivered', 'failed', 'cancelled']);

export const delivery = z.object({
  delivery_id: z.string(),
  status: deliveryStatus,
  subscriber_id: z.string(),
  subscriber_type: z.enum(['node', 'agent']),
  last_error: z.string().optional(),
  reason_code: z.string().optional(),
  session_id: z.string().optional(),
  attempts: z.number().int().optional(),
  redrive_of_dead_letter_id: z.string().optional().describe('additive: set on a delivery a redrive created; the dead letter it sends again'),
});

export const deadLetter = z.object({
  dead_letter_id: z.string(),
  chain_depth: z.number().int(),
  created_at: timestamp,
  failure_type: z.enum(['handler_error', 'timeout', 'chain_depth_exceeded', 'unknown_subscriber']),
  retry_count: z.number().int(),
  error_message: z.string().optional(),
  handler_node: z.string().optional(),
  delivery_id: z.string().optional(),
  subscriber_id: z.string().optional(),
  reason_code: z.string().optional(),
  redrive: z
    .object({
      redriven_at: timestamp,
      actor_token_id: z.string(),
      operation_id: z.string(),
      delivery_id: z.string().describe('the new delivery attempt'),
    })
    .optional()
    .describe('additive: set once the dead letter was redriven'),
  redrive_of_dead_letter_id: z.string().optional().describe('additive: set when this dead letter is the failure of a redrive; the dead letter that was redriven'),
});

export const storedEvent = z.object({
  event_id: z.string(),
  event_name: z.string(),
  created_at: timestamp,
  source: z.string(),
  payload: json,
  dead_letters: z.array(deadLetter),
  deliveries: z.array(delivery),
  entity_id: z.string().optional(),
  run_id: z.string().optional(),
  chain_depth: z.number().int().optional(),
  parent_event_id: z.string().optional(),
  replay_of_event_id: z.string().optional().describe('additive: set on an event a replay published; the event it replays'),
  trace_id: z.string().optional().describe('additive: the OpenTelemetry trace the event was written in; set when tracing was on'),
});

export const runStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

export const run = z.object({
  run_id: z.string(),
  status: runStatus,
  root_event_id: z.string(),
  event_name: z.string(),
  entity_id: z.string().optional(),
  bundle_fingerprint: z.string(),
  created_at: timestamp,
  settled_at: timestamp.optional(),
  event_count: z.number().int(),
  dead_letter_count: z.number().int(),
  trace_id: z.string().optional().describe("additive: the OpenTelemetry trace of the run's first event; set when tracing was on"),
});

/** A server process sharing the store: its heartbeat row, read with the database's clock. */
export const serverProcess = z.object({
  server_id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  version: z.string(),
  started_at: timestamp,
  last_seen_at: timestamp,
  in_flight_handlers: z.number().int().nonnegative(),
  self: z.boolean(),
});

/** Rows a retention pass removed (or a preview would), per kind (ADR 0018). */
export const retentionCounts = z.object({
  runs: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
  deliveries: z.number().int().nonnegative(),
  dead_letters: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  conversations: z.number().int().nonnegative().describe('ended conversations scoped to a removed run'),
  queued_publishes: z.number().int().nonnegative().describe('released ingress queue rows of removed runs'),
  logs: z.number().int().nonnegative(),
  incident_hours: z.number().int().nonnegative().describe('hourly incident rollup rows'),
  audit: z.number().int().nonnegative(),
});

/** One retention pass or preview. */
export const retentionRun = z.object({
  retention_run_id: z.string(),
  started_at: timestamp,
  finished_at: timestamp.optional(),
  dry_run: z.boolean(),
  trigger: z.enum(['schedule', 'manual']),
  server_id: z.string().describe('the server that ran it'),
  status: z.enum(['running', 'completed', 'failed', 'interrupted']),
  cutoffs: z
    .object({ history: timestamp.optional(), dead_letters: timestamp.optional(), incident_hours: timestamp.optional(), audit: timestamp.optional() })
    .describe('records older than these were removed; absent: that kind is kept forever'),
  removed: retentionCounts.describe('rows removed, or for a preview rows it would remove'),
  error: z.string().optional(),
});

/** Retention's summary in health.check: whether it is on, its last pass, and this server's next. */
export const retentionHealth = z.object({
  enabled: z.boolean(),
  last_run: retentionRun.optional(),
  next_run_at: timestamp.optional().describe("this server's next scheduled pass"),
});

export const healthCheckResult = z.object({
  ok: z.boolean(),
  ts: timestamp,
  status: z.enum(['ok', 'degraded', 'down']),
  uptime_s: z.number(),
  ingress: z.enum(['open', 'paused']),
  bundle: z.object({ fingerprint: z.string(), name: z.string() }),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), latency_ms: z.number(), detail: z.string().optional() })),
  /** Every live server process on this store (one on SQLite), the answering one marked `self`. */
  servers: z.array(serverProcess),
  tracing: z.object({ enabled: z.boolean().describe('whether this server started the OpenTelemetry SDK (OTEL_* variables)') }).optional().describe('additive'),
  retention: retentionHealth.optional().describe('additive: the last retention pass and the next (runtime.retention has the details)'),
});

export type Incident = z.infer<typeof incident>;
export type LogRecord = z.infer<typeof logRecord>;
export type MailboxItem = z.infer<typeof mailboxItem>;
export type MailboxHistoryEntry = z.infer<typeof mailboxHistoryEntry>;
export type DecisionSheet = z.infer<typeof decisionSheet>;
export type MailboxApproval = z.infer<typeof mailboxApproval>;
export type MailboxDeciders = z.infer<typeof mailboxDeciders>;
export type EntityRecord = z.infer<typeof entityRecord>;
export type Conversation = z.infer<typeof conversation>;
export type Turn = z.infer<typeof turn>;
export type Agent = z.infer<typeof agent>;
export type SessionRef = z.infer<typeof sessionRef>;
export type LastTurnRef = z.infer<typeof lastTurnRef>;
export type Delivery = z.infer<typeof delivery>;
export type DeadLetter = z.infer<typeof deadLetter>;
export type StoredEvent = z.infer<typeof storedEvent>;
export type Run = z.infer<typeof run>;
export const operationKind = z.enum(['redrive', 'replay']);
/**
 * running: sending items, or waiting for the deliveries it created to settle; paused: stopped by
 * stop_after_failures; completed: everything sent and every new delivery delivered;
 * completed_with_failures: everything sent and settled, but items failed or their deliveries
 * dead-lettered again; cancelled; failed.
 */
export const operationStatus = z.enum(['running', 'paused', 'completed', 'completed_with_failures', 'cancelled', 'failed']);

export const operation = z.object({
  operation_id: z.string(),
  kind: operationKind,
  status: operationStatus,
  rate_per_second: z.number(),
  counts: z.object({
    total: z.number().int(),
    done: z.number().int().describe('items sent: a new delivery (redrive) or a new event (replay)'),
    failed: z.number().int().describe('items that could not be sent'),
    skipped: z.number().int().describe('items with nothing to send any more (already redriven, removed by a reset)'),
  }),
  outcomes: z
    .object({
      pending: z.number().int().describe('sent items whose deliveries have not settled yet'),
      delivered: z.number().int(),
      dead_lettered: z.number().int().describe('sent items whose delivery (redrive) or one of whose deliveries (replay) dead-lettered again'),
      cancelled: z.number().int(),
    })
    .describe('what became of the sent items, recorded on each item as its deliveries settle (never recomputed later)'),
  stop_after_failures: z.number().int().optional().describe('the operation pauses once failed items and dead-lettered-again items reach this'),
  records_removed_at: timestamp
    .optional()
    .describe('a runtime reset removed the deliveries and events this operation created; its counts and outcomes are as recorded before'),
  selection: z.record(z.string(), z.unknown()).describe('the filter the operation was planned from'),
  plan_hash: z.string(),
  actor_token_id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  finished_at: timestamp.optional(),
  cancelled_by_token_id: z.string().optional(),
  error: z.string().optional(),
});

export const operationItem = z.object({
  item_index: z.number().int(),
  target_id: z.string().describe('the dead letter (redrive) or event (replay) acted on'),
  event_id: z.string().optional().describe('the event of the dead letter (redrive), or the replayed event (replay)'),
  status: z.enum(['pending', 'done', 'failed', 'skipped']),
  result_id: z.string().optional().describe('the delivery (redrive) or event (replay) created'),
  outcome: z
    .enum(['delivered', 'dead_lettered', 'cancelled'])
    .optional()
    .describe('a done item, once its deliveries settled: delivered, dead-lettered again, or cancelled; absent while they are pending'),
  note: z.string().optional().describe('why an item was skipped or failed'),
});

export type HealthCheckResult = z.infer<typeof healthCheckResult>;
export type RetentionRun = z.infer<typeof retentionRun>;
export type RetentionCounts = z.infer<typeof retentionCounts>;
export type ServerProcess = z.infer<typeof serverProcess>;
export type Operation = z.infer<typeof operation>;
export type OperationItem = z.infer<typeof operationItem>;
export type IncidentActivity = z.infer<typeof incidentActivity>;
