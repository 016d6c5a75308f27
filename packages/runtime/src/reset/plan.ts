/**
 * Reset owner 1, the plan: what goes, what stays and how many, plus `plan_hash`, a fingerprint of
 * exactly what would be done (per removed table its row count and newest row marker, the agents to
 * reset, the containers to stop, the bundle). An apply that carries the hash of an earlier dry run
 * is refused with PLAN_STALE when the state has moved since. In apply mode the plan owner also
 * takes the reset lock before anything else happens.
 */
import { createHash } from 'node:crypto';
import { RpcError } from '@switchboard/contract';
import { canonicalJson } from '@switchboard/contract';
import { listContainersToStop } from './container-stop';
import type { ResetContext } from './reset-context';
import type { ResetLock } from './reset-lock';
import { KEPT_RECORDS, REMOVED_TABLES, type RemovalCounts } from '@switchboard/store';

export interface PlanSection {
  [key: string]: unknown;
  plan_hash: string;
  remove: RemovalCounts;
  reset: { agents: number };
  keep: {
    tokens: number;
    web_sessions: number;
    idempotency_records: number;
    reset_audit_records: number;
    bundle: { name: string; version: string; fingerprint: string };
    also_kept: readonly string[];
  };
  containers_to_stop: { count: number; container_ids: string[] };
  lock: 'held' | 'not_taken';
  /**
   * What plan_hash covers. `state`: every removed table's count and newest row, the agents, the
   * containers and the bundle. `paused_ingress`: ingress is paused, so nothing new arrives; what
   * still changes (handlers finishing, queued publishes, their containers, agents that took their
   * first turn) is removed, stopped or reset by the reset too, so the hash covers only the bundle
   * and the pause: the plan does not go stale by records it will also remove.
   */
  hash_basis: 'state' | 'paused_ingress';
}

export async function previewPlan(ctx: ResetContext, lock: 'held' | 'not_taken'): Promise<PlanSection> {
  const { resets } = ctx.store;
  const snapshots = await resets.snapshotRemovals();
  const agents = await resets.agentsToResetCount();
  const containers = await listContainersToStop(ctx.store);
  const containerIds = containers.map((c) => c.container_id).sort();
  const paused = (await ctx.ingress.state()) === 'paused';
  const basis = paused ? { bundle: ctx.bundle.fingerprint, ingress: 'paused' } : { bundle: ctx.bundle.fingerprint, tables: snapshots, agents_to_reset: agents, containers: containerIds };
  const plan_hash = 'sha256:' + createHash('sha256').update(canonicalJson(basis)).digest('hex');
  const kept = await resets.keptCounts();
  const def = ctx.bundle.definition;
  return {
    plan_hash,
    remove: Object.fromEntries(REMOVED_TABLES.map((t) => [t, snapshots[t].count])) as RemovalCounts,
    reset: { agents },
    keep: { ...kept, bundle: { name: def.name, version: def.version, fingerprint: ctx.bundle.fingerprint }, also_kept: KEPT_RECORDS.filter((k) => !(k in kept)) },
    containers_to_stop: { count: containerIds.length, container_ids: containerIds },
    lock,
    hash_basis: paused ? 'paused_ingress' : 'state',
  };
}

/**
 * Apply mode: takes the lock, then computes the plan and checks it against the hash the caller
 * previewed. On PLAN_STALE the lock is released again before the error leaves.
 */
export class PlanStaleError extends RpcError {
  constructor(
    readonly plan: PlanSection,
    expected: string,
  ) {
    super('PLAN_STALE', 'The runtime state changed since the reset plan was previewed; run a new dry run and review it', { expected, actual: plan.plan_hash });
  }
}

export async function takePlan(ctx: ResetContext, lock: ResetLock, resetId: string, expectedPlanHash: string | undefined): Promise<PlanSection> {
  await lock.acquire(resetId);
  try {
    const plan = await previewPlan(ctx, 'held');
    if (expectedPlanHash !== undefined && expectedPlanHash !== plan.plan_hash) throw new PlanStaleError(plan, expectedPlanHash);
    return plan;
  } catch (err) {
    await lock.release();
    throw err;
  }
}
