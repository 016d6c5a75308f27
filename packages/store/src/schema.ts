/**
 * Table types for Kysely. Timestamps are ISO 8601 strings (UTC, millisecond precision, so that
 * text order is time order); JSON columns hold serialized text; booleans are 0/1 integers so the
 * same schema works on SQLite and PostgreSQL.
 */
import type { Generated } from 'kysely';

export interface TokensTable {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  user_id: string | null;
  /** JSON array of scopes the token is narrowed to; null: its user's role's scopes. */
  scopes: string | null;
}

export interface UsersTable {
  id: string;
  display_name: string;
  email: string | null;
  role: string;
  disabled: number;
  created_at: string;
  last_seen_at: string | null;
  /** "issuer sub" of a person who signs in with OpenID Connect. */
  oidc_subject: string | null;
}

export interface WebSessionsTable {
  id_hash: string;
  token_id: string;
  created_at: string;
  expires_at: string;
}

export interface IdempotencyTable {
  method: string;
  token_id: string;
  key: string;
  body_hash: string;
  state: 'in_progress' | 'done';
  response: string | null;
  created_at: string;
  expires_at: string;
  /** The server running an in-progress call; its claim is dropped only once that server is dead. */
  server_id: string | null;
}

export interface RuntimeStateTable {
  key: string;
  value: string;
}

export interface RunsTable {
  run_id: string;
  status: string;
  root_event_id: string;
  event_name: string;
  entity_id: string | null;
  bundle_fingerprint: string;
  created_at: string;
  settled_at: string | null;
  /** The person whose publish started the run (migration 019); null when unknown. */
  started_by_user_id: Generated<string | null>;
}

export interface EventsTable {
  seq: Generated<number>;
  event_id: string;
  event_name: string;
  created_at: string;
  source: string;
  payload: string;
  entity_id: string | null;
  run_id: string | null;
  chain_depth: number;
  parent_event_id: string | null;
  has_dead_letter: number;
  /** Set on an event published by a replay: the event it replays. */
  replay_of_event_id: Generated<string | null>;
  /** The W3C traceparent of the span that wrote the event; null while tracing is off. */
  traceparent: Generated<string | null>;
}

export interface DeliveriesTable {
  delivery_id: string;
  event_id: string;
  /** Denormalised from the event so subscriber filters can walk one index in page order. */
  event_seq: number;
  event_created_at: string;
  run_id: string | null;
  subscriber_id: string;
  subscriber_type: string;
  status: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  reason_code: string | null;
  session_id: string | null;
  created_at: string;
  updated_at: string;
  /** Set on a delivery a redrive created: the dead letter it sends again. */
  redrive_of_dead_letter_id: Generated<string | null>;
}

export interface DeadLettersTable {
  dead_letter_id: string;
  event_id: string;
  event_seq: number;
  event_created_at: string;
  delivery_id: string | null;
  run_id: string | null;
  subscriber_id: string | null;
  chain_depth: number;
  created_at: string;
  failure_type: string;
  retry_count: number;
  error_message: string | null;
  handler_node: string | null;
  reason_code: string | null;
  redriven_at: Generated<string | null>;
  redriven_by_token_id: Generated<string | null>;
  redrive_operation_id: Generated<string | null>;
  redrive_delivery_id: Generated<string | null>;
}

export interface OperationsTable {
  operation_id: string;
  /** redrive | replay */
  kind: string;
  /** running | paused | completed | completed_with_failures | cancelled | failed */
  status: string;
  /** The selection the operation was planned from, as JSON. */
  selection: string;
  plan_hash: string;
  rate_per_second: number;
  total: number;
  done: number;
  failed: number;
  skipped: number;
  actor_token_id: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  cancelled_by_token_id: string | null;
  error: string | null;
  /** The server sending the operation's items, while it holds the lease (ADR 0013). */
  lease_owner: Generated<string | null>;
  /** Bumped by each claim: a batch's writes count only under the epoch its sender claimed. */
  lease_epoch: Generated<number>;
  lease_expires_at: Generated<string | null>;
  /** Pause after this many re-failures (items failed plus deliveries dead-lettered again). */
  stop_after_failures: Generated<number | null>;
  /** Sent items by what became of their deliveries, as they settle; and those not settled yet. */
  delivered: Generated<number>;
  dead_lettered: Generated<number>;
  outcome_cancelled: Generated<number>;
  outcome_pending: Generated<number>;
  /** When a reset removed the deliveries and events this operation created. */
  records_removed_at: Generated<string | null>;
}

export interface OperationItemsTable {
  operation_id: string;
  item_index: number;
  /** The dead letter (redrive) or event (replay) the item acts on. */
  target_id: string;
  /** pending | done | failed | skipped */
  status: string;
  /** The delivery (redrive) or event (replay) the item created. */
  result_id: string | null;
  note: string | null;
  processed_at: string | null;
  /** What became of the item's deliveries: delivered | dead_lettered | cancelled (null until settled). */
  outcome: Generated<string | null>;
  settled_at: Generated<string | null>;
  /** The event the item concerns, recorded when it is sent. */
  event_id: Generated<string | null>;
}

export interface LogsTable {
  seq: Generated<number>;
  log_id: string;
  ts: string;
  level: string;
  /** debug 0, info 1, warn 2, error 3, fatal 4: lets "highest level" be a MAX(). */
  level_rank: number;
  component: string;
  error_code: string | null;
  message: string;
  is_mcp: number;
  event_id: string | null;
  run_id: string | null;
  delivery_id: string | null;
  dead_letter_id: string | null;
  entity_id: string | null;
  session_id: string | null;
  /** What an incident groups by besides component and code: '' or, for a dead letter, `["subscriber","reason"]` (migration 015). */
  cause_key: Generated<string>;
}

/** Warn-or-worse log records per hour and (component, error code, cause): see migrations 005 and 015. */
export interface IncidentHoursTable {
  /** The hour's ISO prefix, "YYYY-MM-DDTHH" (UTC). */
  hour: string;
  component: string;
  /** The error code, or '' for none. */
  error_key: string;
  cause_key: string;
  is_mcp: number;
  count: number;
  first_seen: string;
  last_seen: string;
  level_rank: number;
}

/** The per-minute rollup beside `incident_hours` (migration 026): the same counts per minute. */
export interface IncidentMinutesTable extends Omit<IncidentHoursTable, 'hour'> {
  /** The minute's ISO prefix, "YYYY-MM-DDTHH:MM" (UTC). */
  minute: string;
}

/** Six-hour blocks of `incident_hours` (migration 027): each row sums its block's hour rows. */
export interface IncidentSixHoursTable extends Omit<IncidentHoursTable, 'hour'> {
  /** The block's first hour, "YYYY-MM-DDTHH" with HH 00, 06, 12 or 18 (UTC). */
  block: string;
}

export interface EntitiesTable {
  entity_id: string;
  entity_type: string;
  current_state: string;
  flow_instance: string;
  revision: number;
  run_id: string;
  name: string | null;
  slug: string | null;
  fields: string;
  accumulated: string;
  created_at: string;
  updated_at: string;
}

export interface MailboxItemsTable {
  seq: Generated<number>;
  mailbox_id: string;
  created_at: string;
  payload: string;
  priority: string;
  source_flow: string;
  status: string;
  type: string;
  decided_at: string | null;
  decision: string | null;
  source_entity_id: string | null;
  source_event_id: string | null;
  run_id: string | null;
  /** The decision sheet as shown when the item was decided (JSON); see migration 008. */
  decided_sheet: Generated<string | null>;
  emitted_payload: Generated<string | null>;
  emitted_event_id: Generated<string | null>;
  /** A reject's reason code, from the bundle's codes for the item's type. */
  reason_code: Generated<string | null>;
  /** Approvals so far; incremented only while pending, which serialises approvals (migration 019). */
  approvals_count: Generated<number>;
}

/** One person's approval of a mailbox item (migration 019). */
export interface MailboxApprovalsTable {
  mailbox_id: string;
  user_id: string;
  user_name: string;
  role: string;
  token_id: string;
  approved_at: string;
  /** The mailbox_decision_id the approval answered with. */
  decision_id: string;
  reason: string | null;
  override_note: string | null;
}

export interface MailboxHistoryTable {
  seq: Generated<number>;
  mailbox_id: string;
  action: string;
  actor_token_id: string;
  ts: string;
  decision_payload: string | null;
  reason: string | null;
  decision_id: string | null;
  reason_code: Generated<string | null>;
  /** An approval past failing gates: the operator's note (migration 016). */
  override_note: Generated<string | null>;
  /** JSON array of {gate, summary, detail} that failed when the approval overrode them. */
  overridden_gates: Generated<string | null>;
}

export interface AgentsTable {
  agent_id: string;
  type: string;
  role: string;
  model_tier: string;
  conversation_mode: string;
  session_scope: string;
  status: string;
  current_session_id: string | null;
  last_turn_id: string | null;
  updated_at: string;
}

export interface ConversationsTable {
  seq: Generated<number>;
  session_id: string;
  agent_id: string;
  /** What the session is scoped to (global, a run id or an entity id), per the agent's session_scope. */
  scope_key: string;
  started_at: string;
  status: string;
  message_count: number;
  turn_count: number;
  ended_at: string | null;
  run_id: string | null;
}

export interface TurnsTable {
  turn_id: string;
  session_id: string;
  turn_index: number;
  latency_ms: number;
  parse_ok: number;
  trigger_event_id: string;
  trigger_event_type: string;
  error: string | null;
  request_payload: string | null;
  response_payload: string | null;
  tool_calls: string | null;
  turn_blocks: string | null;
  started_at: string;
  completed_at: string;
}

export interface IngressQueueTable {
  seq: Generated<number>;
  queue_id: string;
  event_id: string;
  run_id: string;
  event_name: string;
  payload: string;
  entity_id: string | null;
  source: string;
  status: 'queued' | 'released';
  queued_at: string;
  released_at: string | null;
  /** The publish span's W3C traceparent, for the event written at release; null while tracing is off. */
  traceparent: Generated<string | null>;
}

export interface ResetsTable {
  reset_id: string;
  started_at: string;
  finished_at: string | null;
  status: string;
  reason: string | null;
  actor_token_id: string | null;
  plan_hash: string | null;
  result: string | null;
}

/** The state an operator gave an incident group; see migration 007. */
export interface IncidentStatesTable {
  component: string;
  /** The error code, or '' for none. */
  error_key: string;
  cause_key: string;
  /** open | acknowledged | resolved | ignored */
  state: string;
  changed_at: string;
  actor_token_id: string;
  note: string | null;
  ignore_until: string | null;
  ignore_occurrences: number | null;
}

export interface IncidentActivityTable {
  seq: Generated<number>;
  component: string;
  error_key: string;
  cause_key: Generated<string>;
  ts: string;
  actor_token_id: string;
  state: string;
  note: string | null;
  ignore_until: string | null;
  ignore_occurrences: number | null;
}

export interface ContainersTable {
  container_id: string;
  entity_id: string;
  implementation: string;
  status: string;
  pid: number | null;
  started_at: string;
  stopped_at: string | null;
  last_error: string | null;
}

/** A server process on this database, with its heartbeat (database clock). */
export interface ServersTable {
  server_id: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  last_seen_at: string;
  in_flight: number;
  stopped_at: string | null;
}

/** The change feed: one row per committed transaction that other servers should hear of. */
export interface ChangesTable {
  seq: Generated<number>;
  /** Comma-separated change kinds (events, mailbox, reset, ingress, tokens, ...). */
  kinds: string;
  server_id: string | null;
  created_at: string;
}

/** One audited act, a link of the hash chain (see repositories/audit.ts). */
export interface AuditTable {
  seq: number;
  at: string;
  user_id: string | null;
  user_name: string | null;
  token_id: string | null;
  channel: string;
  server_id: string;
  method: string;
  /** JSON array of ids. */
  target_ids: string;
  /** JSON object. */
  params_summary: string;
  outcome: string;
  correlation_id: string | null;
  prev_hash: string;
  hash: string;
}

export interface AuditTargetsTable {
  target_id: string;
  seq: number;
}

/** The chain's one head row (id 1): its last seq and hash. */
export interface AuditHeadTable {
  id: number;
  seq: number;
  hash: string;
  /** The last record retention removed (0: none) and its hash: where the remaining chain starts (migration 023). */
  pruned_through_seq: Generated<number>;
  pruned_through_hash: Generated<string>;
}

/** One retention pass or preview (migration 023). */
export interface RetentionRunsTable {
  retention_run_id: string;
  started_at: string;
  finished_at: string | null;
  dry_run: number;
  /** schedule | manual */
  trigger: string;
  server_id: string;
  /** running | completed | failed | interrupted */
  status: string;
  /** JSON: the cut-off times the pass used, per kind. */
  cutoffs: string;
  /** JSON: rows removed (or, for a preview, that would be) per kind. */
  removed: string;
  error: string | null;
}

/** The one row (id 1) a pruning server holds: owner, fencing epoch, expiry on the database clock. */
export interface RetentionLeaseTable {
  id: number;
  owner: string | null;
  epoch: number;
  expires_at: string | null;
}

/** An alert rule (see migration 020): JSON lists of destination ids and, for bundle rules, names. */
export interface AlertRulesTable {
  id: string;
  name: string;
  trigger: string;
  /** The rule's `when` as JSON. */
  condition: string;
  destination_ids: string;
  escalation_destination_ids: string;
  destination_names: string;
  escalation_destination_names: string;
  enabled: number;
  source: string;
  created_at: string;
  updated_at: string;
}

export interface AlertDestinationsTable {
  id: string;
  name: string;
  kind: string;
  url: string;
  /** The signing secret of a webhook; never returned after creation. */
  secret: string | null;
  created_at: string;
  created_by: string | null;
}

/** The notice outbox: one row per notice, claimed by a sender with a lease. */
export interface AlertNoticesTable {
  id: string;
  rule_id: string | null;
  rule_name: string | null;
  destination_id: string;
  destination_name: string;
  kind: string;
  transition: string;
  subject_type: string;
  subject_id: string | null;
  title: string;
  link: string | null;
  /** JSON object: the subject's details sent as the webhook's data. */
  body: string;
  /** pending | delivered | failed | cancelled */
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  dedupe_key: string | null;
}

export interface AlertSilencesTable {
  id: string;
  rule_id: string | null;
  incident_id: string | null;
  until: string;
  reason: string;
  created_by: string | null;
  created_at: string;
  ended_at: string | null;
}

/** Whether a condition rule holds for a subject, and its episode (bumped each time it starts holding). */
export interface AlertConditionsTable {
  rule_id: string;
  subject_key: string;
  holding: number;
  episode: number;
  changed_at: string;
}

/** A person's named set of filters for one console list (migration 024). */
export interface SavedViewsTable {
  id: string;
  owner_user_id: string;
  list: string;
  name: string;
  /** The name as uniqueness compares it: trimmed, lower-cased. */
  name_key: string;
  /** The list screen's URL search params, as JSON. */
  filters: string;
  shared: number;
  created_at: string;
  updated_at: string;
}

export interface Database {
  saved_views: SavedViewsTable;
  alert_rules: AlertRulesTable;
  alert_destinations: AlertDestinationsTable;
  alert_notices: AlertNoticesTable;
  alert_silences: AlertSilencesTable;
  alert_conditions: AlertConditionsTable;
  audit: AuditTable;
  audit_targets: AuditTargetsTable;
  audit_head: AuditHeadTable;
  retention_runs: RetentionRunsTable;
  retention_lease: RetentionLeaseTable;
  servers: ServersTable;
  changes: ChangesTable;
  tokens: TokensTable;
  users: UsersTable;
  web_sessions: WebSessionsTable;
  idempotency: IdempotencyTable;
  runtime_state: RuntimeStateTable;
  runs: RunsTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  dead_letters: DeadLettersTable;
  logs: LogsTable;
  incident_hours: IncidentHoursTable;
  incident_minutes: IncidentMinutesTable;
  incident_six_hours: IncidentSixHoursTable;
  entities: EntitiesTable;
  mailbox_items: MailboxItemsTable;
  mailbox_history: MailboxHistoryTable;
  mailbox_approvals: MailboxApprovalsTable;
  agents: AgentsTable;
  conversations: ConversationsTable;
  turns: TurnsTable;
  ingress_queue: IngressQueueTable;
  resets: ResetsTable;
  containers: ContainersTable;
  operations: OperationsTable;
  operation_items: OperationItemsTable;
  incident_states: IncidentStatesTable;
  incident_activity: IncidentActivityTable;
}
