/**
 * Redrive and replay, estimate then apply: a dry run computes the plan (what would be sent, to
 * whom, and a hash of exactly that set); an apply recomputes it, refuses a stale hash with
 * PLAN_STALE, and writes a durable operation whose items the OperationRunner sends at its rate.
 */
import { createHash } from 'node:crypto';
import {
  DEFAULT_OPERATION_RATE,
  MAX_OPERATION_ITEMS,
  RpcError,
  type Operation,
  type OperationItem,
  type Result,
} from '@switchboard/contract';
import type { Clock, DeadLetterSelection, EventFilter, OperationItemRow, OperationRow, Store } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import type { OnEffectCommit } from '../effect-commit';
import { newId } from '../ids';
import type { OperationRunner } from './operation-runner';

export type OperationPlan = Result<'event.redrive'>['plan'];
export type ApplyOutcome = Result<'event.redrive'>;

export interface RecoverySelection {
  filter?: EventFilter;
  since?: string;
  until?: string;
  subscriber_ids?: string[];
  /** Redrive only. */
  dead_letter_ids?: string[];
  /** Replay only. */
  event_ids?: string[];
}

export interface RecoveryRequest {
  kind: 'redrive' | 'replay';
  selection: RecoverySelection;
  dryRun: boolean;
  expectedPlanHash?: string;
  ratePerSecond?: number;
  /** Pause after this many re-failures. */
  stopAfterFailures?: number;
  actorTokenId: string;
}

interface PlannedItems {
  plan: OperationPlan;
  targets: string[];
}

const SAMPLE_SIZE = 10;

function tally<T>(items: T[], key: (item: T) => string | null | undefined, weight: (item: T) => number = () => 1): { key: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k) counts.set(k, (counts.get(k) ?? 0) + weight(item));
  }
  return [...counts].map(([k, count]) => ({ key: k, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

function planHash(kind: string, targets: string[], subscriberIds: string[] | undefined): string {
  const h = createHash('sha256').update(kind).update('\n').update([...(subscriberIds ?? [])].sort().join(',')).update('\n');
  for (const t of [...targets].sort()) h.update(t).update('\n');
  return `sha256:${h.digest('hex').slice(0, 32)}`;
}

function tooMany(matched: number): RpcError {
  return new RpcError('INVALID_PARAMS', `the selection matches ${matched} items, over the limit of ${MAX_OPERATION_ITEMS} per operation; narrow the filter or the time range`, {
    matched,
    limit: MAX_OPERATION_ITEMS,
  });
}

export class Recovery {
  constructor(
    private readonly store: Store,
    private readonly bundle: LoadedBundle,
    private readonly clock: Clock,
    private readonly runner: OperationRunner,
  ) {}

  async plan(kind: 'redrive' | 'replay', selection: RecoverySelection): Promise<PlannedItems> {
    return kind === 'redrive' ? this.planRedrive(selection) : this.planReplay(selection);
  }

  private async planRedrive(selection: RecoverySelection): Promise<PlannedItems> {
    const match: DeadLetterSelection = { ...selection.filter, since: selection.since, until: selection.until, dead_letter_ids: selection.dead_letter_ids, subscriber_ids: selection.subscriber_ids };
    const matches = await this.store.operations.matchDeadLetters(match);
    if (matches.length > MAX_OPERATION_ITEMS) throw tooMany(matches.length);
    const toSend = matches.filter((m) => m.redriven_at === null);
    const targets = toSend.map((m) => m.dead_letter_id);
    return {
      targets,
      plan: {
        kind: 'redrive',
        plan_hash: planHash('redrive', targets, selection.subscriber_ids),
        matched: matches.length,
        already_redriven: matches.length - toSend.length,
        to_send: toSend.length,
        deliveries: toSend.length,
        by_subscriber: tally(toSend, (m) => m.subscriber_id).map(({ key, count }) => ({ subscriber_id: key, count })),
        by_reason_code: tally(toSend, (m) => m.reason_code).map(({ key, count }) => ({ reason_code: key, count })),
        by_event_name: tally(toSend, (m) => m.event_name).map(({ key, count }) => ({ event_name: key, count })),
        ...(toSend.length > 0 ? { newest: toSend[0]!.created_at, oldest: toSend[toSend.length - 1]!.created_at } : {}),
        sample: toSend.slice(0, SAMPLE_SIZE).map((m) => ({
          target_id: m.dead_letter_id,
          event_id: m.event_id,
          event_name: m.event_name,
          created_at: m.created_at,
          ...(m.subscriber_id ? { subscriber_id: m.subscriber_id } : {}),
          ...(m.reason_code ? { reason_code: m.reason_code } : {}),
          ...(m.error_message ? { error_message: m.error_message } : {}),
        })),
      },
    };
  }

  private async planReplay(selection: RecoverySelection): Promise<PlannedItems> {
    const matches = await this.store.operations.matchEvents({ ...selection.filter, since: selection.since, until: selection.until, event_ids: selection.event_ids });
    if (matches.length > MAX_OPERATION_ITEMS) throw tooMany(matches.length);
    const only = selection.subscriber_ids;
    const subscribersOf = (eventName: string) => (this.bundle.definition.events[eventName]?.subscribers ?? []).map((s) => s.id).filter((id) => !only || only.includes(id));
    const toSend = matches.map((m) => ({ ...m, subscribers: subscribersOf(m.event_name) })).filter((m) => m.subscribers.length > 0);
    const targets = toSend.map((m) => m.event_id);
    const perSubscriber = toSend.flatMap((m) => m.subscribers);
    // Subscribers that act outside the runtime, among those of every matching event (not only the
    // chosen ones), so a client can offer them unticked.
    const sideEffects = new Set<string>();
    for (const name of new Set(matches.map((m) => m.event_name))) {
      for (const s of this.bundle.definition.events[name]?.subscribers ?? []) if (s.side_effects) sideEffects.add(s.id);
    }
    const sample = toSend.slice(0, SAMPLE_SIZE);
    const entity_revisions = [];
    for (const m of sample) {
      if (!m.entity_id) continue;
      const [then, now] = await Promise.all([this.store.entities.revisionAsOf(m.entity_id, m.event_id), this.store.entities.get(m.entity_id)]);
      if (then !== null) entity_revisions.push({ event_id: m.event_id, entity_id: m.entity_id, revision_then: then, revision_now: now?.revision ?? null });
    }
    return {
      targets,
      plan: {
        kind: 'replay',
        plan_hash: planHash('replay', targets, only),
        matched: matches.length,
        already_redriven: 0,
        to_send: toSend.length,
        deliveries: perSubscriber.length,
        by_subscriber: tally(perSubscriber, (s) => s).map(({ key, count }) => ({ subscriber_id: key, count })),
        by_reason_code: [],
        by_event_name: tally(toSend, (m) => m.event_name).map(({ key, count }) => ({ event_name: key, count })),
        ...(toSend.length > 0 ? { newest: toSend[0]!.created_at, oldest: toSend[toSend.length - 1]!.created_at } : {}),
        sample: sample.map((m) => ({ target_id: m.event_id, event_id: m.event_id, event_name: m.event_name, created_at: m.created_at })),
        side_effect_subscribers: [...sideEffects].sort(),
        entity_revisions,
      },
    };
  }

  /** A dry run returns the plan; an apply checks the plan hash and starts the operation. */
  async run(request: RecoveryRequest, onCommit?: OnEffectCommit<ApplyOutcome>): Promise<ApplyOutcome> {
    if (!request.dryRun && !request.expectedPlanHash) {
      throw new RpcError('INVALID_PARAMS', 'expected_plan_hash is required to apply: run a dry run first and pass its plan.plan_hash', { field: 'expected_plan_hash' });
    }
    const { plan, targets } = await this.plan(request.kind, request.selection);
    if (request.dryRun) return { dry_run: true, plan };
    if (plan.plan_hash !== request.expectedPlanHash) {
      throw new RpcError('PLAN_STALE', `the matching set changed since the estimate (now ${plan.to_send} to send); estimate again`, {
        expected_plan_hash: request.expectedPlanHash,
        plan_hash: plan.plan_hash,
        to_send: plan.to_send,
      });
    }
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const operation_id = newId('op', now);
    const empty = targets.length === 0;
    const outcome = await this.store.transaction(async (trx) => {
      await this.store.operations.create(
        trx,
        {
          operation_id,
          kind: request.kind,
          status: 'running',
          selection: JSON.stringify(request.selection),
          plan_hash: plan.plan_hash,
          rate_per_second: request.ratePerSecond ?? DEFAULT_OPERATION_RATE,
          total: targets.length,
          actor_token_id: request.actorTokenId,
          created_at: nowIso,
          updated_at: nowIso,
          stop_after_failures: request.stopAfterFailures ?? null,
        },
        targets,
        empty ? undefined : this.runner.creationLease,
      );
      if (empty) await this.store.operations.finish(trx, operation_id, 'completed', nowIso);
      const row = await this.store.operations.get(operation_id, trx);
      const result: ApplyOutcome = { dry_run: false, plan, operation: toOperation(row!) };
      await onCommit?.(trx, result);
      return result;
    });
    if (!empty) this.runner.track(operation_id);
    return outcome;
  }

  async get(operationId: string, itemsLimit: number): Promise<{ operation: Operation; items: OperationItem[] }> {
    const row = await this.store.operations.get(operationId);
    if (!row) throw new RpcError('NOT_FOUND', `no operation ${operationId}`, { operation_id: operationId });
    const items = itemsLimit > 0 ? await this.store.operations.items(operationId, itemsLimit) : [];
    return { operation: toOperation(row), items: items.map(toOperationItem) };
  }

  async list(options: Parameters<Store['operations']['list']>[0]) {
    const page = await this.store.operations.list(options);
    const operations = page.operations.map((row) => toOperation(row));
    return { operations, next: page.next };
  }

  async cancel(operationId: string, actorTokenId: string, onCommit?: OnEffectCommit<{ operation: Operation; cancelled: boolean }>) {
    const row = await this.store.operations.get(operationId);
    if (!row) throw new RpcError('NOT_FOUND', `no operation ${operationId}`, { operation_id: operationId });
    return this.store.transaction(async (trx) => {
      const nowIso = this.clock.now().toISOString();
      const cancelled = await this.store.operations.finish(trx, operationId, 'cancelled', nowIso, { cancelled_by_token_id: actorTokenId });
      const after = (await this.store.operations.get(operationId, trx))!;
      const result = { operation: toOperation(after), cancelled };
      await onCommit?.(trx, result);
      return result;
    });
  }
}

/** An operation as the API shows it: read from its row only (a reset's removals change nothing here). */
export function toOperation(row: OperationRow): Operation {
  return {
    operation_id: row.operation_id,
    kind: row.kind as Operation['kind'],
    status: row.status as Operation['status'],
    rate_per_second: Number(row.rate_per_second),
    counts: { total: Number(row.total), done: Number(row.done), failed: Number(row.failed), skipped: Number(row.skipped) },
    outcomes: {
      pending: Number(row.outcome_pending),
      delivered: Number(row.delivered),
      dead_lettered: Number(row.dead_lettered),
      cancelled: Number(row.outcome_cancelled),
    },
    ...(row.stop_after_failures !== null ? { stop_after_failures: Number(row.stop_after_failures) } : {}),
    ...(row.records_removed_at ? { records_removed_at: row.records_removed_at } : {}),
    selection: JSON.parse(row.selection) as Record<string, unknown>,
    plan_hash: row.plan_hash,
    actor_token_id: row.actor_token_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(row.finished_at ? { finished_at: row.finished_at } : {}),
    ...(row.cancelled_by_token_id ? { cancelled_by_token_id: row.cancelled_by_token_id } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}

function toOperationItem(row: OperationItemRow): OperationItem {
  return {
    item_index: Number(row.item_index),
    target_id: row.target_id,
    ...(row.event_id ? { event_id: row.event_id } : {}),
    status: row.status as OperationItem['status'],
    ...(row.result_id ? { result_id: row.result_id } : {}),
    ...(row.outcome ? { outcome: row.outcome as NonNullable<OperationItem['outcome']> } : {}),
    ...(row.note ? { note: row.note } : {}),
  };
}
