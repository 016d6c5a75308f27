/**
 * The bundle format: what a deployment declares. Validated with precise paths so a bad bundle
 * stops boot with "file: path: problem".
 */
import { z } from 'zod';
import { alertTrigger, MAX_PAYLOAD_CONDITIONS, payloadPathProblem } from '@switchboard/contract';

const name = z.string().regex(/^[a-z][a-z0-9_.-]*$/, 'lowercase letters, digits, ".", "_" and "-", starting with a letter');
const jsonSchemaLike = z.record(z.string(), z.unknown());

export const subscriberSchema = z.strictObject({
  type: z.enum(['node', 'agent']),
  id: name,
  /**
   * The subscriber acts outside the runtime (pays, sends, charges): a replay does not send to it
   * unless the operator ticks it, and the console warns.
   */
  side_effects: z.boolean().default(false),
});

export const eventDefSchema = z.strictObject({
  description: z.string().optional(),
  /** JSON Schema subset: type object, properties with type, required. */
  payload_schema: jsonSchemaLike.default({ type: 'object' }),
  subscribers: z.array(subscriberSchema).default([]),
  /**
   * Payload fields searched often (a ticket or order id): the store keeps an index on each, so an
   * event.list condition on one answers from the index (docs/payload-search.md).
   */
  indexed_payload_fields: z
    .array(
      z.string().superRefine((path, ctx) => {
        const problem = payloadPathProblem(path);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .max(MAX_PAYLOAD_CONDITIONS, `at most ${MAX_PAYLOAD_CONDITIONS} indexed payload fields per event`)
    .default([]),
});

export const nodeSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('transform'),
    description: z.string().optional(),
    emit: name,
    /** Maps output payload keys to input payload paths ("$.ticket_id") or literals; empty passes the payload through. */
    map: z.record(z.string(), z.unknown()).default({}),
  }),
  z.strictObject({
    kind: z.literal('entity_update'),
    description: z.string().optional(),
    entity_type: name,
    /** Where the entity id comes from when the event carries none, e.g. "$.ticket_id". */
    entity_id: z.string().optional(),
    /** Entity display name template, e.g. "$.subject"; the slug is derived from it. */
    entity_name: z.string().optional(),
    /** Moves the entity along its declared transitions on this event and sets these fields. */
    set_fields: z.record(z.string(), z.unknown()).default({}),
    /** Running values kept on the entity: count events, sum or keep the max/last of a payload value. */
    accumulate: z
      .record(z.string(), z.strictObject({ op: z.enum(['count', 'sum', 'max', 'last']), value: z.string().optional() }))
      .default({}),
    emit: name.optional(),
    /** Payload of the emitted event; roots "$." (trigger payload) and "$entity." (the updated entity). */
    emit_map: z.record(z.string(), z.unknown()).optional(),
  }),
  z.strictObject({
    kind: z.literal('approval_gate'),
    description: z.string().optional(),
    mailbox_type: name,
    priority: z.enum(['low', 'normal', 'high', 'urgent']).default('normal'),
    /** Raises the priority to "high" when this condition on the payload holds, e.g. "amount > 500". */
    escalate_when: z.string().optional(),
    source_flow: z.string().min(1),
    /** Mailbox payload; empty copies the trigger payload. */
    payload_map: z.record(z.string(), z.unknown()).default({}),
  }),
  z.strictObject({
    kind: z.literal('tool_call'),
    description: z.string().optional(),
    tool_server: name,
    tool: z.string().min(1),
    /** Tool arguments; empty sends the trigger payload. */
    arguments: z.record(z.string(), z.unknown()).default({}),
    timeout_ms: z.number().int().min(10).max(120_000).default(2_000),
    emit_on_success: name.optional(),
    /** Payload of the success event; roots "$." (trigger payload) and "$result." (tool result). */
    emit_map: z.record(z.string(), z.unknown()).optional(),
  }),
]);

/**
 * One rule of the offline scripted model: the first rule whose `when` holds for the trigger
 * payload answers. Attempts are 1-based delivery attempts, so "fail on attempt 1" yields a
 * model failure followed by a successful retry.
 */
export const scriptRuleSchema = z.strictObject({
  when: z.string().optional(),
  tool_calls: z.array(z.strictObject({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) })).default([]),
  /** The model's final JSON answer; roots "$." (payload) and "$tools.<tool>." (tool results). */
  reply: z.record(z.string(), z.unknown()).default({ action: 'none' }),
  /** Model failure (provider error) on these attempts; all attempts when error is set without it. */
  error: z.string().optional(),
  fail_attempts: z.array(z.number().int().min(1)).optional(),
  /** Free text instead of JSON on these attempts (all attempts when omitted): the output does not parse. */
  raw_output: z.string().optional(),
  unparseable_attempts: z.array(z.number().int().min(1)).optional(),
  latency_ms: z.number().int().min(0).max(60_000).default(25),
});

export const agentSchema = z.strictObject({
  agent_id: name,
  type: z.string().min(1),
  role: z.string().min(1),
  model_tier: z.string().min(1),
  conversation_mode: z.enum(['task', 'chat']).default('task'),
  session_scope: z.enum(['global', 'run', 'entity']).default('run'),
  system_prompt: z.string().optional(),
  /** Model name sent to an OpenAI-compatible provider; the provider's configured default when omitted. */
  model: z.string().min(1).optional(),
  /** Rules for the offline scripted provider; see providers/scripted.ts. */
  script: z.array(scriptRuleSchema).default([]),
  /** The event the agent publishes when its answer has action "emit". */
  emit: name.optional(),
  /** Tool names offered to the model; each must be served by exactly one tool server. */
  tools: z.array(z.string().min(1)).default([]),
});

export const entityTypeSchema = z.strictObject({
  description: z.string().optional(),
  initial_state: z.string().min(1),
  states: z.array(z.string().min(1)).min(1),
  /** event name → target state */
  transitions: z.record(z.string(), z.string()).default({}),
  fields: z.record(z.string(), z.strictObject({ type: z.enum(['string', 'number', 'boolean', 'object']), description: z.string().optional() })).default({}),
  /** gate name → condition "field op value", e.g. "amount <= 500" */
  gates: z.record(z.string(), z.string()).default({}),
  managed_container: z.boolean().default(false),
});

/**
 * Who may decide items of one mailbox type and how many distinct people must approve. Without
 * `deciders`, anyone whose role grants mailbox decisions may decide; with it, a person qualifies
 * by holding one of the listed roles (exactly, so "reviewer" alone keeps operators out) or by
 * being one of the listed users. For a declared type, the person who started an item's run may
 * not approve it.
 */
export const mailboxTypeSchema = z.strictObject({
  description: z.string().optional(),
  deciders: z
    .strictObject({
      roles: z.array(z.string().min(1)).default([]),
      users: z.array(z.string().min(1)).default([]),
    })
    .optional(),
  approvals_required: z.number().int().min(1).max(10).default(1),
  /** An item pending longer than pending_s notifies mailbox.sla rules; escalate_after_s later still, their escalation destinations. */
  sla: z
    .strictObject({
      pending_s: z.number().int().min(1).max(30 * 86_400),
      escalate_after_s: z.number().int().min(1).max(30 * 86_400).optional(),
    })
    .optional(),
});

/**
 * An alert rule of the bundle: added at boot when no rule of its name exists (then the stored
 * rule, which the API may change, is what counts). Destinations carry secrets, so they are
 * created through the API and named here; a name with no destination yet is resolved when a
 * notice is made.
 */
export const bundleAlertRuleSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  when: alertTrigger,
  destinations: z.array(z.string().min(1).max(100)).min(1).max(10),
  escalation_destinations: z.array(z.string().min(1).max(100)).max(10).default([]),
  enabled: z.boolean().default(true),
});

export const toolServerSchema = z.strictObject({
  protocol: z.literal('mcp'),
  description: z.string().optional(),
  /** Probability 0..1 that a call fails, for the demo's flaky payments tool; deterministic per attempt. */
  failure_rate: z.number().min(0).max(1).default(0),
  /** Probability 0..1 that a call hangs until the caller's timeout, deterministic per attempt like failures. */
  timeout_rate: z.number().min(0).max(1).default(0),
  tools: z.array(z.string().min(1)).min(1),
});

export const bundleSchema = z.strictObject({
  name: name,
  version: z.string().min(1),
  description: z.string().optional(),
  runtime: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(20).default(3),
      backoff_ms: z.number().int().min(0).max(60_000).default(200),
      max_chain_depth: z.number().int().min(1).max(64).default(8),
      lease_ms: z.number().int().min(100).max(600_000).default(30_000),
      handler_timeout_ms: z.number().int().min(10).max(600_000).default(15_000),
    })
    .default({ max_attempts: 3, backoff_ms: 200, max_chain_depth: 8, lease_ms: 30_000, handler_timeout_ms: 15_000 }),
  events: z.record(name, eventDefSchema),
  nodes: z.record(name, nodeSchema).default({}),
  agents: z.array(agentSchema).default([]),
  entity_types: z.record(name, entityTypeSchema).default({}),
  tool_servers: z.record(name, toolServerSchema).default({}),
  /** mailbox item type → the event approval emits */
  approval_routes: z.record(name, z.strictObject({ emit: name })).default({}),
  /** mailbox item type → who may decide it and how many approvals it needs (default: any decider, one approval) */
  mailbox_types: z.record(name, mailboxTypeSchema).default({}),
  /** mailbox item type → the reason codes a reject of it may carry (counted and filtered by code) */
  reject_reasons: z
    .record(name, z.array(z.strictObject({ code: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a lower_snake_case code'), label: z.string().min(1).max(200) })).min(1))
    .default({}),
  alerts: z.strictObject({ rules: z.array(bundleAlertRuleSchema).default([]) }).default({ rules: [] }),
});

export type BundleDefinition = z.output<typeof bundleSchema>;
export type NodeDefinition = z.output<typeof nodeSchema>;
export type AgentDefinition = z.output<typeof agentSchema>;
export type EntityTypeDefinition = z.output<typeof entityTypeSchema>;
export type MailboxTypeDefinition = z.output<typeof mailboxTypeSchema>;
export type ToolServerDefinition = z.output<typeof toolServerSchema>;
export type ScriptRule = z.output<typeof scriptRuleSchema>;
export type BundleAlertRule = z.output<typeof bundleAlertRuleSchema>;
