import { z } from 'zod';
import { role } from '../access';
import { defineMethod } from '../method';
import { incident, incidentActivity, incidentStateName, logRecord, retentionRun, timestamp, timestampParam } from '../records';
import { emptyParams, idempotencyKey, nextCursor, pageCursor, pageLimit } from './common';

export const runtimeIncidents = defineMethod({
  name: 'runtime.incidents',
  summary: 'Aggregated runtime incidents (log records grouped by error code and component) for triage.',
  description:
    'Groups log records at level warn and above inside the look-back window. The window is fixed by the first page and carried in next_cursor, so paging sees stable counts. incident_id encodes the group and is accepted by runtime.incident_logs. Additive: a dead letter\'s records also group by subscriber and reason (subscriber_id, reason_code), so an incident has one cause.',
  params: z.strictObject({
    since_hours: z.number().int().min(1).max(24 * 90).optional().describe('look-back window in hours, default 24'),
    component: z.string().min(1).optional(),
    mcp_only: z.boolean().optional().describe('only components of MCP tool servers (mcp.*)'),
    sort: z
      .enum(['last_seen', 'count', 'severity', 'first_seen', 'trend'])
      .optional()
      .describe('additive; default last_seen. severity: highest level first, then last seen; trend: rising first'),
    states: z
      .array(z.enum(['open', 'regressed', 'acknowledged', 'resolved', 'ignored']))
      .min(1)
      .optional()
      .describe('additive: only incidents in these states (open includes regressed); all when absent. The console asks for open'),
    histogram_buckets: z.number().int().min(1).max(96).optional().describe('additive; buckets in each incident histogram, default 24'),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ incidents: z.array(incident), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

const breakdownEntry = z.object({ value: z.string(), count: z.number().int() });

export const runtimeIncidentLogs = defineMethod({
  name: 'runtime.incident_logs',
  summary: 'Additive: the log records of one incident group (sample ids first), for the triage detail panel.',
  params: z.strictObject({
    incident_id: z.string().min(1),
    since_hours: z.number().int().min(1).max(24 * 90).optional(),
    limit: pageLimit,
  }),
  result: z.object({
    logs: z.array(logRecord),
    dead_letters: z
      .object({
        total: z.number().int(),
        redriven: z.number().int(),
        delivered: z.number().int(),
        redrivable_ids: z
          .array(z.string())
          .optional()
          .describe('additive: ids of those not redriven yet, oldest first, at most 1000 (what event.redrive dead_letter_ids takes)'),
      })
      .optional()
      .describe('additive: the dead letters the incident\'s records name, how many were redriven, and how many redrives were delivered'),
    breakdown: z
      .object({ subscribers: z.array(breakdownEntry), reasons: z.array(breakdownEntry), event_names: z.array(breakdownEntry) })
      .optional()
      .describe('additive: the incident\'s records in the window counted by subscriber, reason code and event name (through the dead letter, delivery and event a record names), most first'),
    sample_payload: z
      .object({ event_id: z.string(), event_name: z.string(), payload: z.record(z.string(), z.unknown()) })
      .optional()
      .describe('additive: the payload of the event named by the latest record that names one'),
  }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const runtimeIncidentUpdate = defineMethod({
  name: 'runtime.incident_update',
  summary: 'Additive: acknowledges, resolves, ignores or reopens an incident; recorded in its activity with the token and an optional note.',
  description:
    'A resolved incident that occurs again is open and regressed. An ignored one is open again after ignore_until, or after ignore_occurrences more occurrences; with neither it stays ignored until changed.',
  params: z.strictObject({
    incident_id: z.string().min(1),
    state: incidentStateName,
    note: z.string().max(2000).optional(),
    ignore_until: timestampParam.optional().describe('with state ignored: open again at this time'),
    ignore_occurrences: z.number().int().min(1).max(1_000_000).optional().describe('with state ignored: open again after this many more occurrences'),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({ incident_id: z.string(), state: incidentStateName, regressed: z.boolean(), state_changed_at: timestamp }),
  errors: ['NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'incidents:write',
  mutating: true,
});

export const runtimeIncidentActivity = defineMethod({
  name: 'runtime.incident_activity',
  summary: "Additive: an incident's state changes, oldest first, with its regressions.",
  params: z.strictObject({ incident_id: z.string().min(1) }),
  result: z.object({ activity: z.array(incidentActivity) }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const resetRecord = z.object({
  reset_id: z.string(),
  started_at: timestamp,
  finished_at: timestamp.optional(),
  status: z.string().describe('in_progress, completed, partial_failure, interrupted, or refused (an apply refused with PLAN_STALE; its result holds the plan as it was then and, when known, the diff per table)'),
  reason: z.string().optional(),
  actor_token_id: z.string().optional(),
  actor_token_name: z.string().optional().describe("additive: that token's name"),
  plan_hash: z.string().optional(),
  result: z.record(z.string(), z.unknown()).optional().describe('what each reset owner reported'),
});

export const runtimeResets = defineMethod({
  name: 'runtime.resets',
  summary: 'Additive: past runtime resets from the audit records, newest first: who, when, why, the plan hash and the result.',
  params: z.strictObject({ limit: pageLimit }),
  result: z.object({ resets: z.array(resetRecord) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const runtimeQueue = defineMethod({
  name: 'runtime.queue',
  summary: 'Additive: publishes queued while ingress is paused, oldest first (the order resume releases them in).',
  params: z.strictObject({ limit: pageLimit }),
  result: z.object({
    queued: z.array(
      z.object({
        queue_id: z.string(),
        event_id: z.string(),
        run_id: z.string(),
        event_name: z.string(),
        entity_id: z.string().optional(),
        source: z.string(),
        queued_at: timestamp,
      }),
    ),
    queue_depth: z.number().int(),
  }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const runtimeCatalog = defineMethod({
  name: 'runtime.catalog',
  summary: "Additive: the boot bundle's event catalog: every event name with its description and subscribers.",
  params: emptyParams,
  result: z.object({
    events: z.array(
      z.object({
        name: z.string(),
        description: z.string().optional(),
        subscribers: z.array(
          z.object({
            type: z.enum(['node', 'agent']),
            id: z.string(),
            side_effects: z.boolean().optional().describe('additive: true when the bundle marks the subscriber as acting outside the runtime'),
          }),
        ),
        indexed_payload_fields: z
          .array(z.string())
          .optional()
          .describe('additive: payload paths the bundle declares indexed for this event; an event.list eq or in condition on one is served by an index'),
      }),
    ),
  }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const recordKind = z.enum(['event', 'run', 'entity', 'agent', 'session', 'mailbox', 'turn', 'dead_letter', 'delivery', 'log', 'operation', 'incident', 'server', 'token', 'subscriber', 'user']);

export const runtimeLookup = defineMethod({
  name: 'runtime.lookup',
  summary: 'Additive: which record an id names (any id the console shows), with what is needed to open it.',
  description:
    'Kinds: event, run, entity, agent, session, mailbox (item), turn, dead_letter, delivery, log (record), operation, incident, server (a Switchboard server process, as in health.check), token (an access token, by id; name is set, and user_id, user_name and role name the person it acts for), subscriber (a flow node subscriber of the bundle) and user (a person, by id; user_name and role are set). An event source as the runtime writes it (`node:<subscriber>`, `agent:<agent>`, `mailbox:<item>`, `replay:<operation>`) names what follows its colon. event_id is set for records that belong to an event; session_id for turns (and agent deliveries and logs); incident_id for a log record at warn or above and for an incident.',
  params: z.strictObject({ id: z.string().min(1).max(500) }),
  result: z.object({
    kind: recordKind,
    id: z.string(),
    event_id: z.string().optional(),
    session_id: z.string().optional(),
    incident_id: z.string().optional(),
    name: z.string().optional().describe('additive: a token\'s name'),
    user_id: z.string().optional().describe('additive: for a token, the person it acts for'),
    user_name: z.string().optional().describe('additive: for a token, its person\'s display name'),
    role: role.optional().describe('additive: for a token, its person\'s role'),
  }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const runtimeStatus = defineMethod({
  name: 'runtime.status',
  summary: 'Ingress state, queue depth, bundle and reset state of the runtime.',
  params: emptyParams,
  result: z.object({
    name: z.string().describe('runtime name, from the bundle'),
    ingress: z.enum(['open', 'paused']),
    queue_depth: z.number().int().describe('publishes queued while ingress is paused'),
    active_runs: z.number().int(),
    pending_deliveries: z.number().int(),
    reset_in_progress: z.boolean(),
    bundle: z.object({ name: z.string(), version: z.string(), fingerprint: z.string(), loaded_at: timestamp }),
    started_at: timestamp,
  }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const runtimePause = defineMethod({
  name: 'runtime.pause',
  summary: 'Pauses runtime ingress: publishes are accepted and queued durably until runtime.resume.',
  params: z.strictObject({ idempotency_key: idempotencyKey, reason: z.string().max(2000).optional() }),
  result: z.object({ ok: z.boolean(), ingress: z.enum(['open', 'paused']) }),
  errors: ['RESET_IN_PROGRESS', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'runtime:pause',
  mutating: true,
});

export const runtimeResume = defineMethod({
  name: 'runtime.resume',
  summary: 'Resumes runtime ingress; each queued publish becomes eligible for dispatch exactly once.',
  params: z.strictObject({ idempotency_key: idempotencyKey }),
  result: z.object({ ok: z.boolean(), released: z.number().int().optional().describe('additive: queued items released') }),
  errors: ['RESET_IN_PROGRESS', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'runtime:pause',
  mutating: true,
});

const ownerSection = z.record(z.string(), z.unknown());

export const runtimeNuke = defineMethod({
  name: 'runtime.nuke',
  summary: 'Destructive runtime reset, delegated to the reset owners: plan, quiescence, cleanup, managed-container stop.',
  description:
    'dry_run is required: true returns side-effect-free previews from each owner, and plan.plan_hash identifies what would be done; false applies the reset. An apply should carry the preview\'s plan_hash as expected_plan_hash: it is then refused with PLAN_STALE when the state changed since the preview (an apply without it resets whatever is there).',
  params: z.strictObject({
    dry_run: z
      .boolean({ error: 'dry_run is required: true to preview the reset, false to apply it' })
      .describe('required: true previews, false applies (an empty call never destroys anything)'),
    idempotency_key: idempotencyKey,
    expected_plan_hash: z.string().min(1).optional(),
    reason: z.string().max(2000).optional().describe('recorded in the reset audit record'),
  }),
  result: z.object({
    cleanup: ownerSection,
    containers: ownerSection,
    plan: ownerSection,
    quiescence: ownerSection,
    dry_run: z.boolean(),
    ok: z.boolean(),
    operation_name: z.string(),
    partial_failure: z.boolean(),
    status: z.enum(['dry_run', 'completed', 'partial_failure']),
    errors: z.array(z.object({ message: z.string(), scope: z.string() })).optional(),
    reset_id: z.string().optional(),
  }),
  errors: ['RESET_IN_PROGRESS', 'PLAN_STALE', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'runtime:reset',
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

const retentionStorage = z.object({
  bytes: z.number().int().nonnegative().describe('the SQLite file, or the PostgreSQL tables and their indexes'),
  free_bytes: z.number().int().nonnegative().describe('free room inside the SQLite file; 0 on PostgreSQL'),
  reclaim: z
    .enum(['incremental', 'vacuum_needed', 'reused'])
    .describe('incremental: SQLite gives pages back after each pass; vacuum_needed: an SQLite file made before retention, which shrinks only after a one-time VACUUM (docs/retention.md); reused: PostgreSQL reuses the room'),
});

export const runtimeRetention = defineMethod({
  name: 'runtime.retention',
  summary: 'Additive: retention settings, the last pass and preview, the next scheduled pass on this server, and the store size.',
  params: emptyParams,
  result: z.object({
    enabled: z.boolean().describe('false when every setting keeps forever: no pass is scheduled'),
    settings: z.object({
      history_days: z.number().int().nonnegative().describe('settled runs with their events, deliveries, dead letters, turns and log records; 0 keeps forever'),
      dead_letter_days: z.number().int().nonnegative().describe('a settled run with a dead letter not redriven is kept this long; 0 keeps it forever'),
      incident_rollup_days: z.number().int().nonnegative().describe('hourly incident counts; 0 keeps forever'),
      audit_days: z.number().int().nonnegative().describe('audit records; 0 keeps forever'),
      interval_s: z.number().int().positive(),
      batch_size: z.number().int().positive().describe('runs removed per transaction'),
      max_rows_per_second: z.number().int().positive(),
    }),
    last_run: retentionRun.optional(),
    last_preview: retentionRun.optional(),
    next_run_at: timestamp.optional().describe("this server's next scheduled pass"),
    running_on: z.string().optional().describe('the server pruning now, when one is'),
    storage: retentionStorage,
  }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const runtimeRetentionRun = defineMethod({
  name: 'runtime.retention_run',
  summary: 'Additive: runs a retention pass now, or previews one (dry_run: true counts what it would remove and removes nothing).',
  description:
    'One server prunes at a time: when another holds the pruning lease, ran is false and held_by names it. A pass removes whole settled runs in batches at the configured rate, so it may take a while; the answer comes when it has finished.',
  params: z.strictObject({
    dry_run: z.boolean({ error: 'dry_run is required: true to preview, false to remove' }).describe('required: true previews (counts only), false removes'),
  }),
  result: z.object({
    ran: z.boolean(),
    run: retentionRun.optional(),
    held_by: z.string().optional().describe('when ran is false: the server pruning now'),
    storage_before: retentionStorage.optional(),
    storage_after: retentionStorage.optional(),
  }),
  errors: ['RESET_IN_PROGRESS'],
  scope: 'runtime:reset',
  mutating: true,
});
