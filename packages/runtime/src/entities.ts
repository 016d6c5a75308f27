/**
 * The entity store: entities move along their type's transitions, keep fields and accumulated
 * values, and bump `revision` on every change. Updates are conditional on the revision read, so a
 * concurrent writer (another process on PostgreSQL) makes this attempt fail and retry instead of
 * losing an update.
 */
import type { EntityRow, Store, StoreTx } from '@switchboard/store';
import { MAX_ENTITY_ID_LENGTH, type EntityRecord } from '@switchboard/contract';
import type { EntityTypeDefinition } from './bundle/schema';
import { evaluateCondition } from './conditions';
import { HandlerFailure } from './handler-failure';

export interface EntityChange {
  entity_id: string;
  entity_type: string;
  event_name: string;
  run_id: string;
  flow_instance: string;
  fields: Record<string, unknown>;
  accumulate: Record<string, { op: 'count' | 'sum' | 'max' | 'last'; value?: unknown }>;
  name?: string;
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export async function applyEntityChange(store: Store, tx: StoreTx, type: EntityTypeDefinition, change: EntityChange, now: Date): Promise<{ row: EntityRow; changed: boolean; from?: string }> {
  // Counted in code points, as the contract counts a publish's entity_id; UTF-16 units are never fewer.
  const idLength = change.entity_id.length > MAX_ENTITY_ID_LENGTH ? [...change.entity_id].length : change.entity_id.length;
  if (idLength > MAX_ENTITY_ID_LENGTH) {
    throw new HandlerFailure(`entity id of ${idLength} characters: at most ${MAX_ENTITY_ID_LENGTH}`, { reasonCode: 'entity_id_too_long', retryable: false, component: 'entities' });
  }
  const nowIso = now.toISOString();
  const existing = await store.entities.get(change.entity_id, tx);
  if (existing && existing.entity_type !== change.entity_type) {
    throw new HandlerFailure(`entity ${change.entity_id} is a ${existing.entity_type}, not a ${change.entity_type}`, { reasonCode: 'entity_type_mismatch', retryable: false, component: 'entities' });
  }
  const fields: Record<string, unknown> = existing ? (JSON.parse(existing.fields) as Record<string, unknown>) : {};
  const accumulated: Record<string, unknown> = existing ? (JSON.parse(existing.accumulated) as Record<string, unknown>) : {};
  const beforeFields = { ...fields };
  const beforeAccumulated = { ...accumulated };
  for (const [k, v] of Object.entries(change.fields)) if (v !== undefined) fields[k] = v;
  for (const [k, acc] of Object.entries(change.accumulate)) {
    const prev = accumulated[k];
    if (acc.op === 'count') accumulated[k] = (typeof prev === 'number' ? prev : 0) + 1;
    else if (acc.op === 'last') {
      if (acc.value !== undefined) accumulated[k] = acc.value;
    } else if (typeof acc.value === 'number') {
      accumulated[k] = acc.op === 'sum' ? (typeof prev === 'number' ? prev : 0) + acc.value : Math.max(typeof prev === 'number' ? prev : Number.NEGATIVE_INFINITY, acc.value);
    }
  }
  const target = type.transitions[change.event_name];
  const state = target ?? existing?.current_state ?? type.initial_state;

  if (!existing) {
    const row: EntityRow = {
      entity_id: change.entity_id,
      entity_type: change.entity_type,
      current_state: state,
      flow_instance: change.flow_instance,
      revision: 1,
      run_id: change.run_id,
      name: change.name ?? null,
      slug: change.name ? slugify(change.name) : null,
      fields: JSON.stringify(fields),
      accumulated: JSON.stringify(accumulated),
      created_at: nowIso,
      updated_at: nowIso,
    };
    await store.entities.insert(tx, row);
    return { row, changed: true };
  }
  const name = change.name ?? existing.name;
  const changed = state !== existing.current_state || !sameJson(fields, beforeFields) || !sameJson(accumulated, beforeAccumulated) || name !== existing.name;
  if (!changed) return { row: existing, changed: false, from: existing.current_state };
  const next = {
    current_state: state,
    revision: existing.revision + 1,
    run_id: change.run_id,
    name,
    slug: name ? slugify(name) : existing.slug,
    fields: JSON.stringify(fields),
    accumulated: JSON.stringify(accumulated),
    updated_at: nowIso,
  };
  if (!(await store.entities.updateAtRevision(tx, change.entity_id, existing.revision, next))) {
    throw new HandlerFailure(`entity ${change.entity_id} changed concurrently (revision ${existing.revision})`, { reasonCode: 'entity_conflict', component: 'entities', errorCode: 'ENTITY_CONFLICT' });
  }
  return { row: { ...existing, ...next }, changed: true, from: existing.current_state };
}

export function toEntityRecord(row: EntityRow): EntityRecord {
  return {
    entity_id: row.entity_id,
    entity_type: row.entity_type,
    current_state: row.current_state,
    flow_instance: row.flow_instance,
    revision: row.revision,
    run_id: row.run_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(row.name ? { name: row.name } : {}),
    ...(row.slug ? { slug: row.slug } : {}),
  };
}

/** Gates of the entity type evaluated against the entity's fields (then accumulated values). */
export function evaluateGates(type: EntityTypeDefinition | undefined, row: EntityRow): Record<string, { passed: boolean; detail?: string; summary?: string }> {
  const gates: Record<string, { passed: boolean; detail?: string; summary?: string }> = {};
  if (!type) return gates;
  const subject = { ...(JSON.parse(row.accumulated) as Record<string, unknown>), ...(JSON.parse(row.fields) as Record<string, unknown>), current_state: row.current_state };
  for (const [name, condition] of Object.entries(type.gates)) gates[name] = evaluateCondition(condition, subject);
  return gates;
}
