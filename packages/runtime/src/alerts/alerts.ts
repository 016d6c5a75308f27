/**
 * Alerts: the rules the runtime keeps in memory (NoticeMaker), the configuration the control API
 * changes (AlertConfig), the sender that delivers the notice outbox (NoticeSender) and the
 * evaluator of conditions (ConditionEvaluator). Created with the runtime; started and stopped
 * with it. The runtime's writes that are transitions call the hooks below inside their own
 * transactions, so a notice commits with what it tells of.
 */
import type { AlertRuleRecord, Clock, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import { newId } from '../ids';
import { AlertConfig } from './alert-config';
import { ConditionEvaluator } from './condition-evaluator';
import { NoticeMaker } from './notice-maker';
import { NoticeSender, type NoticeSenderOptions } from './notice-sender';

export type AlertsOptions = NoticeSenderOptions & {
  /** How often conditions (SLA, rates, ages) are evaluated (default 5 s). */
  evaluateMs?: number;
};

/** After a transition's notice is inserted, its transaction commits within moments: look then. */
const AFTER_COMMIT_MS = 20;

export class Alerts {
  readonly config: AlertConfig;
  readonly maker: NoticeMaker;
  readonly sender: NoticeSender;
  readonly evaluator: ConditionEvaluator;
  private serverId = '';

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly bundle: LoadedBundle,
    readonly options: AlertsOptions = {},
  ) {
    this.sender = new NoticeSender(store, clock, () => this.serverId, () => this.maker.hasDestinations, options);
    this.maker = new NoticeMaker(store, clock, () => setTimeout(() => this.sender.wake(), AFTER_COMMIT_MS).unref());
    this.config = new AlertConfig(store, clock, () => this.rulesChanged(), () => this.sender.wake());
    this.evaluator = new ConditionEvaluator(store, clock, bundle, this.maker, options.evaluateMs ?? 5_000);
  }

  /**
   * Adds the bundle's rules that no stored rule is named like (the stored one counts once it
   * exists, so an operator's changes survive restarts), then loads the rules into memory.
   */
  async prepare(): Promise<void> {
    const now = this.clock.now();
    for (const r of this.bundle.definition.alerts.rules) {
      const rule: AlertRuleRecord = {
        id: newId('alr', now),
        name: r.name,
        trigger: r.when.trigger,
        condition: r.when,
        destination_ids: [],
        escalation_destination_ids: [],
        destination_names: r.destinations,
        escalation_destination_names: r.escalation_destinations,
        enabled: r.enabled,
        source: 'bundle',
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      await this.store.alerts.addRuleIfAbsent(rule);
    }
    // On SQLite a notice lease can only be a killed process's: send those notices again now.
    if (!this.store.capabilities.sharedByProcesses) await this.store.alerts.notices.releaseAllLeases();
    await this.maker.load();
  }

  /** Starts sending as `serverId` (the lease owner of the notices this process claims) and evaluating. */
  start(serverId: string): void {
    this.serverId = serverId;
    this.sender.start();
    this.evaluator.start();
  }

  async stop(): Promise<void> {
    await this.evaluator.stop();
    await this.sender.stop();
  }

  /** A rule, destination or silence changed (here, or on another server): reload what is in memory. */
  rulesChanged(): Promise<void> {
    return this.maker.reload();
  }

  /** A reset was applied: notify in the transaction that records its outcome. */
  async resetApplied(tx: StoreTx, reset: { reset_id?: string; status: string; reason?: string; cleaned: boolean }): Promise<void> {
    if (!reset.reset_id) return;
    if (reset.cleaned) {
      // The records are gone: an incident that occurs again opens anew and notifies again.
      await this.store.alerts.notices.forgetIncidentEpisodes(tx);
      this.maker.forgetIncidents();
    }
    await this.maker.transition(
      'reset.applied',
      {
        subject_type: 'reset',
        subject_id: reset.reset_id,
        title: `Runtime reset ${reset.reset_id} applied (${reset.status})${reset.reason ? `: ${reset.reason.slice(0, 160)}` : ''}`,
        link: '/runtime#resets',
        data: { reset_id: reset.reset_id, status: reset.status, ...(reset.reason ? { reason: reset.reason } : {}) },
        episode: '',
      },
      tx,
    );
  }

  /** An operation finished with failures: notify in the transaction that finished it. */
  async operationFailed(tx: StoreTx, op: { operation_id: string; kind: string; failed: number; dead_lettered: number; total: number }): Promise<void> {
    await this.maker.transition(
      'operation.failed',
      {
        subject_type: 'operation',
        subject_id: op.operation_id,
        title: `${op.kind} ${op.operation_id} finished with failures: ${op.failed} failed, ${op.dead_lettered} dead-lettered of ${op.total}`,
        link: `/runtime?operation=${op.operation_id}`,
        data: op,
        episode: '',
      },
      tx,
    );
  }

  /** This server declared another dead and took it over: notify in the takeover's transaction. */
  async serverDead(tx: StoreTx, dead: { server_id: string; leases: number; idempotency_claims: number }, by: string): Promise<void> {
    await this.maker.transition(
      'server.dead',
      {
        subject_type: 'server',
        subject_id: dead.server_id,
        title: `Server ${dead.server_id} stopped sending heartbeats; ${by} took over ${dead.leases} delivery lease(s)`,
        link: '/runtime#servers',
        data: { ...dead, taken_over_by: by },
        episode: '',
      },
      tx,
    );
  }
}
