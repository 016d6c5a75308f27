/**
 * The bundle format: what a deployment declares. Validated with precise paths so a bad bundle
 * stops boot with "file: path: problem".
 */
import { z } from 'zod';

const name = z.string().regex(/^[a-z][a-z0-9_.-]*$/, 'lowercase letters, digits, ".", "_" and "-", starting with a letter');
const jsonSchemaLike = z.record(z.string(), z.unknown());

export const subscriberSchema = z.strictObject({
  type: z.enum(['node', 'agent']),
  id: name,
});

export const eventDefSchema = z.strictObject({
  description: z.string().optional(),
  /** JSON Schema subset: type object, properties with type, required. */
  payload_schema: jsonSchemaLike.default({ type: 'object' }),
  subscribers: z.array(subscriberSchema).default([]),
});

export const nodeSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('transform'),
    description: z.string().optional(),
    emit: name,
    /** Maps output payload keys to input payload paths ("$.ticket_id") or literals. */
    map: z.record(z.string(), z.unknown()).default({}),
  }),
  z.strictObject({
    kind: z.literal('entity_update'),
    description: z.string().optional(),
    entity_type: name,
    /** Moves the entity along its declared transitions on this event. */
    set_fields: z.record(z.string(), z.unknown()).default({}),
    emit: name.optional(),
  }),
  z.strictObject({
    kind: z.literal('approval_gate'),
    description: z.string().optional(),
    mailbox_type: name,
    priority: z.enum(['low', 'normal', 'high', 'urgent']).default('normal'),
    source_flow: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('tool_call'),
    description: z.string().optional(),
    tool_server: name,
    tool: z.string().min(1),
    emit_on_success: name.optional(),
  }),
]);

export const agentSchema = z.strictObject({
  agent_id: name,
  type: z.string().min(1),
  role: z.string().min(1),
  model_tier: z.string().min(1),
  conversation_mode: z.enum(['task', 'chat']).default('task'),
  session_scope: z.enum(['global', 'run', 'entity']).default('run'),
  system_prompt: z.string().optional(),
  /** Scripted replies for the offline provider, chosen in turn; see providers/scripted.ts. */
  script: z.array(z.record(z.string(), z.unknown())).default([]),
  emit: name.optional(),
  tools: z.array(z.string()).default([]),
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

export const toolServerSchema = z.strictObject({
  protocol: z.literal('mcp'),
  description: z.string().optional(),
  /** Probability 0..1 that a call fails, for the demo's flaky payments tool; deterministic per attempt. */
  failure_rate: z.number().min(0).max(1).default(0),
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
    })
    .default({ max_attempts: 3, backoff_ms: 200, max_chain_depth: 8, lease_ms: 30_000 }),
  events: z.record(name, eventDefSchema),
  nodes: z.record(name, nodeSchema).default({}),
  agents: z.array(agentSchema).default([]),
  entity_types: z.record(name, entityTypeSchema).default({}),
  tool_servers: z.record(name, toolServerSchema).default({}),
  /** mailbox item type → the event approval emits */
  approval_routes: z.record(name, z.strictObject({ emit: name })).default({}),
});

export type BundleDefinition = z.output<typeof bundleSchema>;
