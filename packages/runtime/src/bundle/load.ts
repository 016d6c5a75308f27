import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { canonicalJson, isRole, roleScopes, ROLES } from '@switchboard/contract';
import { parse as parseYaml } from 'yaml';
import { parseCondition } from '../conditions';
import { checkPayloadSchema } from '../payload-schema';
import { bundleSchema, type BundleDefinition } from './schema';

export class BundleError extends Error {
  constructor(
    readonly file: string,
    readonly at: string,
    readonly problem: string,
  ) {
    super(`${file}: ${at}: ${problem}`);
    this.name = 'BundleError';
  }
}

export interface LoadedBundle {
  file: string;
  definition: BundleDefinition;
  fingerprint: string;
  loadedAt: string;
  /** What the bundle still says in an older way that was accepted and mapped (logged at boot). */
  warnings: string[];
}

export function fingerprintOf(content: unknown): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(content)).digest('hex');
}

function formatPath(segments: PropertyKey[]): string {
  if (segments.length === 0) return '(root)';
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? String(s) : `.${String(s)}`)).join('');
}

/** Loads, validates and fingerprints a bundle file (JSON or YAML). Throws BundleError. */
export function loadBundle(file: string, now: Date = new Date()): LoadedBundle {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (err) {
    throw new BundleError(abs, '(file)', `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(abs) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new BundleError(abs, '(syntax)', (err as Error).message.split('\n')[0] ?? 'not parseable');
  }
  const warnings = mapRenamedTriggers(raw);
  const parsed = bundleSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BundleError(abs, formatPath(issue.path), issue.message);
  }
  const definition = withLookupTables(parsed.data);
  checkReferences(abs, definition);
  return { file: abs, definition, fingerprint: fingerprintOf(raw), loadedAt: now.toISOString(), warnings };
}

/** Alert triggers renamed since bundles were written with them (ADR 0017): old name → new name. */
const RENAMED_TRIGGERS: Record<string, string> = { 'node.dead': 'server.dead' };

/**
 * Maps the renamed alert triggers of `alerts.rules[].when` in place, before validation, so a bundle
 * written before a rename still loads; one warning per rule mapped. The fingerprint stays that of
 * the file as written.
 */
function mapRenamedTriggers(raw: unknown): string[] {
  const rules = (raw as { alerts?: { rules?: unknown } } | null)?.alerts?.rules;
  if (!Array.isArray(rules)) return [];
  const warnings: string[] = [];
  rules.forEach((rule: { when?: { trigger?: unknown } } | null, i) => {
    const trigger = rule?.when?.trigger;
    if (typeof trigger !== 'string' || !Object.hasOwn(RENAMED_TRIGGERS, trigger)) return;
    const renamed = RENAMED_TRIGGERS[trigger]!;
    warnings.push(`alerts.rules[${i}].when.trigger: "${trigger}" is now "${renamed}"; accepted as "${renamed}"`);
    rule!.when!.trigger = renamed;
  });
  return warnings;
}

/**
 * The bundle's named maps are looked up with names that arrive from API callers (event names,
 * mailbox types) and from the bundle's own references. Without a prototype, "constructor",
 * "toString" or "__proto__" are simply absent instead of resolving to Object.prototype members.
 */
function lookupTable<T>(record: Record<string, T>): Record<string, T> {
  const table = Object.create(null) as Record<string, T>;
  for (const [key, value] of Object.entries(record)) table[key] = value;
  return table;
}

function withLookupTables(b: BundleDefinition): BundleDefinition {
  const entityTypes = Object.fromEntries(
    Object.entries(b.entity_types).map(([name, et]) => [name, { ...et, transitions: lookupTable(et.transitions), fields: lookupTable(et.fields), gates: lookupTable(et.gates) }]),
  );
  return {
    ...b,
    events: lookupTable(b.events),
    nodes: lookupTable(b.nodes),
    entity_types: lookupTable(entityTypes),
    tool_servers: lookupTable(b.tool_servers),
    approval_routes: lookupTable(b.approval_routes),
    reject_reasons: lookupTable(b.reject_reasons),
    mailbox_types: lookupTable(b.mailbox_types),
  };
}

/** Cross-references the schema cannot express: every name used must be declared. */
function checkReferences(file: string, b: BundleDefinition): void {
  const agentIds = new Set(b.agents.map((a) => a.agent_id));
  const fail = (at: string, problem: string) => {
    throw new BundleError(file, at, problem);
  };
  const checkCondition = (at: string, text: string | undefined) => {
    if (text === undefined) return;
    const parsed = parseCondition(text);
    if ('error' in parsed) fail(at, parsed.error);
  };
  if (b.runtime.handler_timeout_ms >= b.runtime.lease_ms)
    fail('runtime.handler_timeout_ms', `must be below runtime.lease_ms (${b.runtime.lease_ms}) so a lease never expires under a running handler`);
  const seenAgents = new Set<string>();
  b.agents.forEach((a, i) => {
    if (seenAgents.has(a.agent_id)) fail(`agents[${i}].agent_id`, `duplicate agent id "${a.agent_id}"`);
    seenAgents.add(a.agent_id);
  });
  for (const [eventName, def] of Object.entries(b.events)) {
    const schemaProblem = checkPayloadSchema(def.payload_schema, `events.${eventName}.payload_schema`);
    if (schemaProblem) fail(schemaProblem.at, schemaProblem.problem);
    def.subscribers.forEach((s, i) => {
      const at = `events.${eventName}.subscribers[${i}].id`;
      if (s.type === 'node' && !b.nodes[s.id]) fail(at, `unknown node "${s.id}"`);
      if (s.type === 'agent' && !agentIds.has(s.id)) fail(at, `unknown agent "${s.id}"`);
    });
  }
  for (const [nodeName, node] of Object.entries(b.nodes)) {
    const emitted = node.kind === 'tool_call' ? node.emit_on_success : node.kind === 'approval_gate' ? undefined : node.emit;
    if (emitted && !b.events[emitted]) fail(`nodes.${nodeName}.emit`, `unknown event "${emitted}"`);
    if (node.kind === 'entity_update' && !b.entity_types[node.entity_type])
      fail(`nodes.${nodeName}.entity_type`, `unknown entity type "${node.entity_type}"`);
    if (node.kind === 'tool_call') {
      const server = b.tool_servers[node.tool_server];
      if (!server) fail(`nodes.${nodeName}.tool_server`, `unknown tool server "${node.tool_server}"`);
      else if (!server.tools.includes(node.tool)) fail(`nodes.${nodeName}.tool`, `tool server "${node.tool_server}" has no tool "${node.tool}"`);
    }
  }
  for (const [nodeName, node] of Object.entries(b.nodes)) {
    if (node.kind === 'approval_gate') checkCondition(`nodes.${nodeName}.escalate_when`, node.escalate_when);
  }
  b.agents.forEach((a, i) => {
    if (a.emit && !b.events[a.emit]) fail(`agents[${i}].emit`, `unknown event "${a.emit}"`);
    a.tools.forEach((tool, j) => {
      const servers = Object.entries(b.tool_servers).filter(([, s]) => s.tools.includes(tool));
      if (servers.length === 0) fail(`agents[${i}].tools[${j}]`, `no tool server serves "${tool}"`);
      if (servers.length > 1) fail(`agents[${i}].tools[${j}]`, `"${tool}" is served by several tool servers (${servers.map(([n]) => n).join(', ')})`);
    });
    a.script.forEach((rule, j) => {
      checkCondition(`agents[${i}].script[${j}].when`, rule.when);
      rule.tool_calls.forEach((call, k) => {
        if (!a.tools.includes(call.tool)) fail(`agents[${i}].script[${j}].tool_calls[${k}].tool`, `"${call.tool}" is not in the agent's tools`);
      });
    });
  });
  for (const [type, route] of Object.entries(b.approval_routes)) {
    if (!b.events[route.emit]) fail(`approval_routes.${type}.emit`, `unknown event "${route.emit}"`);
  }
  const openedTypes = new Set(Object.values(b.nodes).flatMap((n) => (n.kind === 'approval_gate' ? [n.mailbox_type] : [])));
  for (const [type, policy] of Object.entries(b.mailbox_types)) {
    const at = `mailbox_types.${type}`;
    if (!openedTypes.has(type)) fail(at, `no approval_gate node opens "${type}" items`);
    const deciders = policy.deciders;
    if (!deciders) continue;
    if (deciders.roles.length === 0 && deciders.users.length === 0) fail(`${at}.deciders`, 'name at least one role or user, or leave deciders out to let every reviewer decide');
    deciders.roles.forEach((r, i) => {
      if (!isRole(r)) fail(`${at}.deciders.roles[${i}]`, `unknown role "${r}" (one of ${ROLES.join(', ')})`);
      else if (!roleScopes[r].includes('mailbox:decide')) fail(`${at}.deciders.roles[${i}]`, `role "${r}" cannot decide mailbox items (it lacks mailbox:decide)`);
    });
    if (deciders.roles.length === 0 && new Set(deciders.users).size < policy.approvals_required) {
      fail(`${at}.approvals_required`, `needs ${policy.approvals_required} distinct approvers but only ${new Set(deciders.users).size} user(s) may decide`);
    }
  }
  const ruleNames = new Set<string>();
  b.alerts.rules.forEach((rule, i) => {
    const at = `alerts.rules[${i}]`;
    if (ruleNames.has(rule.name)) fail(`${at}.name`, `duplicate alert rule name "${rule.name}"`);
    ruleNames.add(rule.name);
    if (rule.escalation_destinations.length && rule.when.trigger !== 'mailbox.sla') fail(`${at}.escalation_destinations`, 'escalation goes with the mailbox.sla trigger only');
    if (rule.when.trigger === 'mailbox.sla') {
      const type = rule.when.mailbox_type;
      if (type !== undefined && !b.mailbox_types[type]?.sla) fail(`${at}.when.mailbox_type`, `mailbox type "${type}" declares no sla (mailbox_types.${type}.sla)`);
      if (type === undefined && !Object.values(b.mailbox_types).some((t) => t.sla)) fail(`${at}.when`, 'no mailbox type declares an sla (mailbox_types.<type>.sla)');
    }
  });
  for (const [typeName, et] of Object.entries(b.entity_types)) {
    if (!et.states.includes(et.initial_state)) fail(`entity_types.${typeName}.initial_state`, `"${et.initial_state}" is not in states`);
    for (const [ev, target] of Object.entries(et.transitions)) {
      if (!b.events[ev]) fail(`entity_types.${typeName}.transitions.${ev}`, `unknown event "${ev}"`);
      if (!et.states.includes(target)) fail(`entity_types.${typeName}.transitions.${ev}`, `"${target}" is not in states`);
    }
    for (const [gate, condition] of Object.entries(et.gates)) checkCondition(`entity_types.${typeName}.gates.${gate}`, condition);
  }
}
