/**
 * Mailbox items: opened by approval gates, decided by people. A decision and its history entry
 * commit in one transaction, and the status flip is a conditional UPDATE (WHERE status='pending'),
 * so of two concurrent decisions exactly one wins and the other sees MAILBOX_NOT_PENDING.
 *
 * The bundle may restrict who decides a type and require several approvals from different people
 * (the two-person rule). Each approval first counts itself on the item's row under its lock
 * (countApproval), so approvals of one item on any number of servers go one at a time: exactly one
 * of them reaches the required count, and only that one decides the item and emits its event.
 */
import { RpcError, type DecisionSheet, type MailboxApproval, type MailboxDeciders } from '@switchboard/contract';
import type { MailboxApprovalRow, MailboxItemRow, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import { insertEventWithDeliveries } from './event-store';
import type { OnEffectCommit } from './effect-commit';
import { newId } from './ids';
import { decisionSheetOf, failingGates } from './decision-sheet';
import { OTHER_REASON_CODE, toMailboxApproval, type ApproveInput, type Decider, type DecisionOutcome, type RejectInput } from './mailbox-decision';
import { validatePayload } from './payload-schema';
import type { RuntimeLog } from './runtime-log';
import { noopRuntimeObserver, type MailboxDecision, type RuntimeObserver } from './observer';
import type { Clock } from '@switchboard/store';

export interface MailboxServiceOptions {
  store: Store;
  bundle: LoadedBundle;
  clock: Clock;
  log: RuntimeLog;
  /** Called when an approval wrote an event whose deliveries wait for a claim. */
  onEventWritten: () => void;
  observer?: RuntimeObserver;
}

export { openMailboxItem, RUNTIME_ACTOR, type NewMailboxItem } from './mailbox-items';
export { OTHER_REASON_CODE, toMailboxApproval, type ApproveInput, type Decider, type DecisionOutcome, type RejectInput } from './mailbox-decision';
export { failingGates, type FailingGate } from './decision-sheet';

export class MailboxService {
  private readonly store: Store;
  private readonly bundle: LoadedBundle;
  private readonly clock: Clock;
  private readonly log: RuntimeLog;
  private readonly onEventWritten: () => void;
  private readonly observer: RuntimeObserver;

  constructor(options: MailboxServiceOptions) {
    this.store = options.store;
    this.bundle = options.bundle;
    this.clock = options.clock;
    this.log = options.log;
    this.onEventWritten = options.onEventWritten;
    this.observer = options.observer ?? noopRuntimeObserver;
  }

  private async pendingItem(tx: StoreTx, mailboxId: string): Promise<MailboxItemRow> {
    const item = await this.store.mailboxDecisions.item(mailboxId, tx);
    if (!item) throw new RpcError('NOT_FOUND', `No mailbox item ${mailboxId}`, { resource: 'mailbox_item', id: mailboxId });
    if (item.status !== 'pending') throw new RpcError('MAILBOX_NOT_PENDING', `Mailbox item ${mailboxId} is already ${item.status}`, { status: item.status });
    return item;
  }

  /**
   * Marks a pending item decided, keeping the decision sheet as it stands in this transaction (what
   * the decider saw, not what the entity becomes later) and what the decision produced.
   */
  private async decide(
    trx: StoreTx,
    item: MailboxItemRow,
    decision: 'approved' | 'rejected',
    now: Date,
    extra: { emitted_payload?: string | null; reason_code?: string | null } = {},
    seen?: DecisionSheet,
  ): Promise<void> {
    const sheet = seen ?? (await decisionSheetOf(this.store, this.bundle, item, trx));
    const decided = await this.store.mailboxDecisions.decide(trx, item.mailbox_id, { status: decision, decision, decided_at: now.toISOString(), decided_sheet: JSON.stringify(sheet), ...extra });
    if (!decided) {
      const current = await this.store.mailboxDecisions.item(item.mailbox_id, trx);
      throw new RpcError('MAILBOX_NOT_PENDING', `Mailbox item ${item.mailbox_id} is already ${current?.status ?? 'decided'}`, { status: current?.status ?? 'unknown' });
    }
  }

  /** Who may decide a type, as the bundle declares it: without a declaration, every decider and one approval. */
  deciders(type: string): MailboxDeciders {
    const policy = this.bundle.definition.mailbox_types[type];
    return { roles: policy?.deciders?.roles ?? [], user_ids: policy?.deciders?.users ?? [], approvals_required: policy?.approvals_required ?? 1 };
  }

  /** FORBIDDEN unless the type lets this person decide (by role or by user id). */
  private refuseUnlessDecider(item: MailboxItemRow, decider: Decider): void {
    const { roles, user_ids } = this.deciders(item.type);
    if (roles.length === 0 && user_ids.length === 0) return;
    if (roles.includes(decider.role) || user_ids.includes(decider.userId)) return;
    const who = [roles.length ? `the roles ${roles.join(', ')}` : '', user_ids.length ? `the users ${user_ids.join(', ')}` : ''].filter(Boolean).join(' or ');
    throw new RpcError('FORBIDDEN', `${item.type} items may be decided only by ${who}; ${decider.userName} is ${decider.role}`, {
      reason: 'not_a_decider',
      mailbox_type: item.type,
      allowed_roles: roles,
      allowed_user_ids: user_ids,
      role: decider.role,
      user_id: decider.userId,
    });
  }

  /**
   * FORBIDDEN when the approver started the item's run: nobody approves their own request. Only for
   * types the bundle declares under mailbox_types: an undeclared type keeps the v1 rule (any decider
   * approves), so a one-person install still approves what it published.
   */
  private async refuseRunStarter(trx: StoreTx, item: MailboxItemRow, decider: Decider): Promise<void> {
    if (!item.run_id || !this.bundle.definition.mailbox_types[item.type]) return;
    const startedBy = await this.store.mailboxDecisions.runStartedBy(item.run_id, trx);
    if (startedBy !== decider.userId) return;
    throw new RpcError('FORBIDDEN', `${decider.userName} started run ${item.run_id} and may not approve its ${item.type} item; someone else has to`, {
      reason: 'started_the_run',
      run_id: item.run_id,
      user_id: decider.userId,
    });
  }

  /**
   * Approvals so far, who may decide, and who started the run when that keeps them from approving
   * (a declared type): what the decision sheet shows.
   */
  async approvalState(item: MailboxItemRow): Promise<{ approvals: MailboxApproval[]; deciders: MailboxDeciders; run_started_by_user_id: string | null }> {
    const approvals = (await this.store.mailboxDecisions.approvals(item.mailbox_id)).map(toMailboxApproval);
    const starterRuleApplies = item.run_id !== null && this.bundle.definition.mailbox_types[item.type] !== undefined;
    const run_started_by_user_id = starterRuleApplies ? await this.store.mailboxDecisions.runStartedBy(item.run_id!) : null;
    return { approvals, deciders: this.deciders(item.type), run_started_by_user_id };
  }

  /** The bundle's reject reason codes for a mailbox item type. */
  rejectReasons(type: string): { code: string; label: string }[] {
    return this.bundle.definition.reject_reasons[type] ?? [];
  }

  async reject(input: RejectInput, onCommit?: OnEffectCommit<DecisionOutcome>): Promise<DecisionOutcome> {
    const reason = input.reason.trim();
    let decided: { item: MailboxItemRow; at: Date } | undefined;
    const outcome = await this.store.transaction(async (trx) => {
      const now = this.clock.now();
      const item = await this.pendingItem(trx, input.mailbox_id);
      decided = { item, at: now };
      this.refuseUnlessDecider(item, input.decider);
      const code = input.reason_code;
      const declared = this.rejectReasons(item.type).map((r) => r.code);
      // A type that declares codes needs one ("other" when none fits, with the reason saying why),
      // so its rejects can be counted and filtered by code. "other" is accepted for any type.
      const allowed = declared.length ? [...declared, OTHER_REASON_CODE] : [];
      if (code === undefined && declared.length) {
        throw new RpcError('INVALID_PARAMS', `reason_code is required for ${item.type}: one of ${allowed.join(', ')}`, { field: 'reason_code', allowed });
      }
      if (code !== undefined && code !== OTHER_REASON_CODE && !declared.includes(code)) {
        throw new RpcError('INVALID_PARAMS', declared.length ? `reason_code must be one of ${allowed.join(', ')} for ${item.type}` : `${item.type} declares no reject reason codes`, {
          field: 'reason_code',
          allowed,
        });
      }
      await this.decide(trx, item, 'rejected', now, { reason_code: code ?? null });
      const mailbox_decision_id = newId('dec', now);
      await this.store.mailboxDecisions.addHistory(trx, {
        mailbox_id: item.mailbox_id,
        action: 'rejected',
        actor_token_id: input.actorTokenId,
        ts: now.toISOString(),
        decision_payload: null,
        reason,
        decision_id: mailbox_decision_id,
        reason_code: code ?? null,
      });
      await this.log.write(
        { level: 'info', component: 'mailbox', message: `${item.type} ${item.mailbox_id} rejected by ${input.decider.userName} (${input.actorTokenId}): ${reason}`, run_id: item.run_id, entity_id: item.source_entity_id, event_id: item.source_event_id },
        trx,
      );
      const rejected: DecisionOutcome = { ok: true, mailbox_decision_id, status: 'rejected' };
      await onCommit?.(trx, rejected);
      return rejected;
    });
    this.observeDecision(decided, 'rejected');
    return outcome;
  }

  async approve(input: ApproveInput, onCommit?: OnEffectCommit<DecisionOutcome>): Promise<DecisionOutcome> {
    let decided: { item: MailboxItemRow; at: Date } | undefined;
    const outcome = await this.store.transaction(async (trx) => {
      const now = this.clock.now();
      const item = await this.pendingItem(trx, input.mailbox_id);
      decided = { item, at: now };
      const { decider } = input;
      this.refuseUnlessDecider(item, decider);
      await this.refuseRunStarter(trx, item, decider);
      // Counted first: from here this transaction holds the item's row, so every approval read
      // below is committed and no other approval of this item runs until this one ends. Any
      // refusal below rolls the count back with everything else.
      const { approvals_required } = this.deciders(item.type);
      const count = await this.store.mailboxDecisions.countApproval(trx, item.mailbox_id);
      if (count === undefined) {
        const current = await this.store.mailboxDecisions.item(item.mailbox_id, trx);
        throw new RpcError('MAILBOX_NOT_PENDING', `Mailbox item ${item.mailbox_id} is already ${current?.status ?? 'decided'}`, { status: current?.status ?? 'unknown' });
      }
      const earlier = await this.store.mailboxDecisions.approvals(item.mailbox_id, trx);
      if (earlier.some((a) => a.user_id === decider.userId)) {
        throw new RpcError('ALREADY_APPROVED', `${decider.userName} already approved ${item.mailbox_id}; ${item.type} needs ${approvals_required} approvals from different people`, {
          approvals: earlier.map(toMailboxApproval),
          approvals_required,
        });
      }
      if (input.expected_entity_revision !== undefined) {
        const entity = item.source_entity_id ? await this.store.entities.get(item.source_entity_id, trx) : undefined;
        const actual = entity?.revision ?? null;
        if (actual !== input.expected_entity_revision) {
          throw new RpcError('STALE_DECISION_SHEET', `The entity is at revision ${actual ?? 'none'}, the decision sheet showed ${input.expected_entity_revision}; reload and decide again`, {
            expected: input.expected_entity_revision,
            actual,
          });
        }
      }
      // The gates as they stand in this transaction: an approval past a failing gate needs the
      // operator to say why, and that note is kept with the decision.
      const sheet = await decisionSheetOf(this.store, this.bundle, item, trx);
      const gates = failingGates(sheet);
      const overrideNote = input.override_note?.trim() || undefined;
      if (gates.failing.length > 0 && !overrideNote) {
        const shown = gates.failing.map((g) => (g.summary ? `${g.gate}, ${g.summary}` : g.gate)).join('; ');
        throw new RpcError('GATE_OVERRIDE_REQUIRED', `${gates.failing.length} of ${gates.total} gates fail: ${shown}; send override_note to approve anyway`, {
          failing_gates: gates.failing,
          gates_total: gates.total,
          entity_id: item.source_entity_id,
        });
      }
      const route = this.bundle.definition.approval_routes[item.type];
      let payload: Record<string, unknown> | undefined;
      if (route) {
        payload = { ...(JSON.parse(item.payload) as Record<string, unknown>), ...(input.decision_payload ?? {}) };
        const issues = validatePayload(this.bundle.definition.events[route.emit]!.payload_schema, payload);
        if (issues.length > 0) {
          throw new RpcError('INVALID_PARAMS', `The approved payload does not fit ${route.emit}`, {
            issues: issues.map((i) => ({ path: i.path.replace(/^payload/, 'decision_payload'), message: i.message })),
          });
        }
      }
      const mailbox_decision_id = newId('dec', now);
      const mine: MailboxApprovalRow = {
        mailbox_id: item.mailbox_id,
        user_id: decider.userId,
        user_name: decider.userName,
        role: decider.role,
        token_id: input.actorTokenId,
        approved_at: now.toISOString(),
        decision_id: mailbox_decision_id,
        reason: input.reason?.trim() || null,
        override_note: overrideNote ?? null,
      };
      await this.store.mailboxDecisions.addApproval(trx, mine);
      const approvals = [...earlier, mine].map(toMailboxApproval);
      if (count < approvals_required) {
        await this.log.write(
          {
            level: 'info',
            component: 'mailbox',
            message: `${item.type} ${item.mailbox_id}: approval ${count} of ${approvals_required} by ${decider.userName} (${input.actorTokenId}); still pending`,
            run_id: item.run_id,
            entity_id: item.source_entity_id,
            event_id: item.source_event_id,
          },
          trx,
        );
        const partial: DecisionOutcome = { ok: true, mailbox_decision_id, status: 'pending', approvals, approvals_required };
        await onCommit?.(trx, partial);
        return partial;
      }
      await this.decide(trx, item, 'approved', now, { emitted_payload: payload ? JSON.stringify(payload) : null }, sheet);
      await this.store.mailboxDecisions.addHistory(trx, {
        mailbox_id: item.mailbox_id,
        action: 'approved',
        actor_token_id: input.actorTokenId,
        ts: now.toISOString(),
        decision_payload: input.decision_payload ? JSON.stringify(input.decision_payload) : null,
        reason: input.reason?.trim() || null,
        decision_id: mailbox_decision_id,
        override_note: overrideNote ?? null,
        overridden_gates: overrideNote && gates.failing.length ? JSON.stringify(gates.failing) : null,
      });
      const result: DecisionOutcome = { ok: true, mailbox_decision_id, status: 'approved', approvals, approvals_required };
      if (route && payload) {
        const source = item.source_event_id ? await this.store.runWrites.eventChain(trx, item.source_event_id) : undefined;
        const runId = item.run_id ?? source?.run_id ?? null;
        if (runId) {
          // New work in a settled run (an approval after the run went quiet) reopens it.
          await this.store.runWrites.reopen(trx, runId);
          const written = await insertEventWithDeliveries(this.store, trx, this.bundle, now, {
            event_name: route.emit,
            payload,
            entity_id: item.source_entity_id,
            run_id: runId,
            source: `mailbox:${item.mailbox_id}`,
            chain_depth: (source?.chain_depth ?? 0) + 1,
            parent_event_id: item.source_event_id,
          });
          await this.store.mailboxDecisions.setEmittedEvent(trx, item.mailbox_id, written.event_id);
          Object.assign(result, {
            downstream_event_id: written.event_id,
            downstream_event_name: route.emit,
            downstream_subscriber_source: 'event_catalog' as const,
            downstream_subscribers: written.subscribers,
          });
        }
      }
      await this.log.write(
        {
          level: 'info',
          component: 'mailbox',
          message: `${item.type} ${item.mailbox_id} approved by ${approvals.map((a) => a.user_name).join(' and ')} (${input.actorTokenId})${gates.failing.length ? ` past failing gates ${gates.failing.map((g) => g.gate).join(', ')}` : ''}${result.downstream_event_name ? `; emitted ${result.downstream_event_name}` : ''}`,
          run_id: item.run_id,
          entity_id: item.source_entity_id,
          event_id: result.downstream_event_id ?? item.source_event_id,
        },
        trx,
      );
      await onCommit?.(trx, result);
      return result;
    });
    if (outcome.downstream_event_id) this.onEventWritten();
    // An approval that leaves the item pending (more are required) is not a decision yet.
    if (outcome.status === 'approved') this.observeDecision(decided, 'approved');
    return outcome;
  }

  /** Tells the observer how long a decided item waited (once its decision committed). */
  private observeDecision(decided: { item: MailboxItemRow; at: Date } | undefined, decision: MailboxDecision): void {
    if (!decided) return;
    const waitedMs = decided.at.getTime() - Date.parse(decided.item.created_at);
    this.observer.onMailboxDecision(decided.item.type, decision, Math.max(0, waitedMs) / 1000);
  }

  /** The server-owned decision sheet: downstream preview from the bundle, entity context from the store. */
  async decisionSheet(mailboxId: string): Promise<DecisionSheet> {
    const item = await this.store.mailboxDecisions.item(mailboxId);
    if (!item) throw new RpcError('NOT_FOUND', `No mailbox item ${mailboxId}`, { resource: 'mailbox_item', id: mailboxId });
    return decisionSheetOf(this.store, this.bundle, item);
  }
}
