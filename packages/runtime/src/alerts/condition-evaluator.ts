/**
 * Conditions that are not a single write: an incident's occurrences in a window, a mailbox item
 * past its type's SLA (and past the escalation delay), dead letters per minute, the oldest due
 * delivery's age. Every few seconds one server (on PostgreSQL, the holder of a transaction-level
 * advisory lock) reads each condition rule's subjects, compares them with which held at the last
 * evaluation (alert_conditions), and notifies those that started holding: once per episode, in the
 * transaction that records the episode.
 */
import { incidentId, type AlertConditionState, type AlertRuleRecord, type Clock, type Store, type StoreTx } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import type { NoticeSubject } from './notice-content';
import type { NoticeMaker } from './notice-maker';

/** Items past their SLA looked at per rule and pass. */
const MAX_ITEMS_PER_PASS = 500;

type Holding = Map<string, Omit<NoticeSubject, 'episode'>>;

/** What a rule's condition holds for now, and how to treat subjects that stopped holding. */
interface Observed {
  rule: AlertRuleRecord;
  holding: Holding;
  /** Forget a released subject (a decided item does not come back) rather than keep its episode. */
  forgetReleased: boolean;
  /** Notify the rule's escalation destinations. */
  escalation?: boolean;
}

/** An item's escalation is remembered under its id with this suffix. */
const ESCALATION_SUFFIX = '#escalation';

export const CONDITION_TRIGGERS = ['incident.occurrences', 'mailbox.sla', 'dead_letters.rate', 'queue.oldest_pending'] as const;

export class ConditionEvaluator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly bundle: LoadedBundle,
    private readonly maker: NoticeMaker,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.evaluate().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One evaluation (skipped while the last still runs, or when no rule with a destination watches a condition). */
  evaluate(): Promise<void> {
    if (this.running) return this.running;
    const rules = CONDITION_TRIGGERS.flatMap((t) => this.maker.rulesFor(t)).filter((r) => this.maker.destinationsOf(r).length > 0 || this.maker.destinationsOf(r, true).length > 0);
    if (rules.length === 0) return Promise.resolve();
    this.running = this.pass(rules).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Reads what holds now outside any transaction (on SQLite a read inside one would wait for the
   * connection the transaction holds), then, holding the evaluator's lock, compares it with what
   * held before and records the changes with their notices.
   */
  private async pass(rules: AlertRuleRecord[]): Promise<void> {
    const now = this.clock.now();
    const observed: Observed[] = [];
    for (const rule of rules) observed.push(...(await this.observe(rule, now)));
    await this.store.transaction(async (tx) => {
      if (!(await this.store.alerts.conditions.tryEvaluatorLock(tx))) return;
      const states = await this.store.alerts.conditions.states(rules.map((r) => r.id), tx);
      for (const o of observed) {
        const mine = states.filter((s) => s.rule_id === o.rule.id && s.subject_key.endsWith(ESCALATION_SUFFIX) === Boolean(o.escalation));
        await this.settle(o.rule, mine, o.holding, tx, o);
      }
    });
  }

  /** The subjects a rule's condition holds for now. */
  private async observe(rule: AlertRuleRecord, now: Date): Promise<Observed[]> {
    const when = rule.condition as { trigger: string; threshold?: number; window_s?: number; per_minute?: number; older_than_s?: number; mailbox_type?: string };
    switch (when.trigger) {
      case 'incident.occurrences': {
        const since = new Date(now.getTime() - when.window_s! * 1000).toISOString();
        const holding: Holding = new Map();
        for (const g of await this.store.incidents.groupsAtLeast(since, when.threshold!)) {
          const id = incidentId(g);
          holding.set(id, {
            transition: 'incident.occurrences',
            subject_type: 'incident',
            subject_id: id,
            title: `Incident over ${when.threshold} occurrences in ${when.window_s} s: ${g.component} ${g.error_code ?? 'no code'} (${g.count})`,
            link: `/incidents?selected=${id}`,
            data: { incident_id: id, component: g.component, error_code: g.error_code, count: g.count, threshold: when.threshold, window_s: when.window_s },
          });
        }
        // Remembered, not forgotten: the next episode of this incident needs the next episode number.
        return [{ rule, holding, forgetReleased: false }];
      }
      case 'dead_letters.rate': {
        const n = await this.store.alerts.conditions.deadLettersSince(new Date(now.getTime() - 60_000).toISOString());
        const holding: Holding = new Map();
        if (n >= when.per_minute!) {
          holding.set('dead_letters', {
            transition: 'dead_letters.rate',
            subject_type: 'dead_letters',
            title: `${n} dead letters in the last minute (threshold ${when.per_minute})`,
            link: '/dead-letters',
            data: { count: n, per_minute: when.per_minute },
          });
        }
        return [{ rule, holding, forgetReleased: false }];
      }
      case 'queue.oldest_pending': {
        const oldest = await this.store.runWrites.oldestDueAt(now.toISOString());
        const ageS = oldest ? Math.floor((now.getTime() - Date.parse(oldest)) / 1000) : 0;
        const holding: Holding = new Map();
        if (oldest && ageS >= when.older_than_s!) {
          holding.set('queue', {
            transition: 'queue.oldest_pending',
            subject_type: 'queue',
            title: `The oldest due delivery has waited ${ageS} s (threshold ${when.older_than_s} s)`,
            link: '/runtime',
            data: { oldest_due_at: oldest, age_s: ageS, older_than_s: when.older_than_s },
          });
        }
        return [{ rule, holding, forgetReleased: false }];
      }
      case 'mailbox.sla':
        return this.observeSla(rule, when.mailbox_type, now);
    }
    return [];
  }

  /**
   * Items past their type's SLA notify the rule's destinations; past the escalation delay as well,
   * its escalation destinations. A decided item is no longer pending, so it never escalates; its
   * remembered state is dropped.
   */
  private async observeSla(rule: AlertRuleRecord, onlyType: string | undefined, now: Date): Promise<Observed[]> {
    const overdue: Holding = new Map();
    const escalate: Holding = new Map();
    for (const [type, def] of Object.entries(this.bundle.definition.mailbox_types)) {
      if (!def.sla || (onlyType !== undefined && type !== onlyType)) continue;
      const { pending_s, escalate_after_s } = def.sla;
      const items = await this.store.alerts.conditions.pendingItemsOlderThan(type, new Date(now.getTime() - pending_s * 1000).toISOString(), MAX_ITEMS_PER_PASS);
      for (const item of items) {
        const waitedS = Math.floor((now.getTime() - Date.parse(item.created_at)) / 1000);
        const subject = (transition: string, title: string) => ({
          transition,
          subject_type: 'mailbox_item',
          subject_id: item.mailbox_id,
          title,
          link: `/mailbox/${item.mailbox_id}`,
          data: { mailbox_id: item.mailbox_id, mailbox_type: type, created_at: item.created_at, waited_s: waitedS, pending_s, ...(escalate_after_s ? { escalate_after_s } : {}), priority: item.priority },
        });
        overdue.set(item.mailbox_id, subject('mailbox.sla', `${type} item ${item.mailbox_id} pending ${waitedS} s, past its ${pending_s} s SLA`));
        if (escalate_after_s !== undefined && waitedS >= pending_s + escalate_after_s) {
          escalate.set(item.mailbox_id + ESCALATION_SUFFIX, subject('mailbox.sla_escalation', `Escalation: ${type} item ${item.mailbox_id} still pending after ${waitedS} s`));
        }
      }
    }
    return [
      { rule, holding: overdue, forgetReleased: true },
      { rule, holding: escalate, forgetReleased: true, escalation: true },
    ];
  }

  /**
   * Subjects that started holding get a new episode and a notice; those that stopped are marked
   * released (or forgotten, for subjects that do not come back: a decided item).
   */
  private async settle(rule: AlertRuleRecord, states: AlertConditionState[], holding: Holding, tx: StoreTx, options: { forgetReleased: boolean; escalation?: boolean }): Promise<void> {
    const nowIso = this.clock.now().toISOString();
    const known = new Map(states.map((s) => [s.subject_key, s]));
    for (const [key, subject] of holding) {
      const was = known.get(key);
      if (was?.holding) continue;
      const episode = (was?.episode ?? 0) + 1;
      await this.store.alerts.conditions.setState({ rule_id: rule.id, subject_key: key, holding: true, episode }, nowIso, tx);
      await this.maker.notify([rule], { ...subject, episode: String(episode) }, tx, { escalation: options.escalation });
    }
    for (const state of states) {
      if (!state.holding || holding.has(state.subject_key)) continue;
      if (options.forgetReleased) await this.store.alerts.conditions.forget(rule.id, state.subject_key, tx);
      else await this.store.alerts.conditions.setState({ ...state, holding: false }, nowIso, tx);
    }
  }
}
