/**
 * Alert configuration: rules, destinations and silences (migration 020). Every write is an
 * 'alerts' change, so other servers reload the rules they keep in memory. The notice outbox is
 * alerts-notices.ts.
 */
import type { Kysely, Updateable } from 'kysely';
import type { ChangeFeedRepository } from '../change-feed';
import type { AlertDestinationsTable, AlertRulesTable, AlertSilencesTable, Database } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { AlertNoticeRepository } from './alerts-notices';
import { AlertConditionRepository } from './alerts-conditions';
import type { StoreEngine } from '../engines/engine';

export interface AlertRuleRecord {
  id: string;
  name: string;
  trigger: string;
  /** The rule's `when`: the trigger and its options. */
  condition: Record<string, unknown>;
  destination_ids: string[];
  escalation_destination_ids: string[];
  /** Bundle rules: destinations named in the bundle, resolved when a notice is made. */
  destination_names: string[];
  escalation_destination_names: string[];
  enabled: boolean;
  source: 'bundle' | 'api';
  created_at: string;
  updated_at: string;
}

export type AlertDestinationRecord = AlertDestinationsTable;
export type AlertSilenceRecord = AlertSilencesTable;

/** A destination still named by a rule (by id, or by name from the bundle). */
export class DestinationInUseError extends Error {
  constructor(readonly ruleNames: string[]) {
    super(`used by ${ruleNames.join(', ')}`);
  }
}

/** A rule or destination name that is taken. */
export class AlertNameTakenError extends Error {}

function ruleOf(row: AlertRulesTable): AlertRuleRecord {
  return {
    id: row.id,
    name: row.name,
    trigger: row.trigger,
    condition: JSON.parse(row.condition) as Record<string, unknown>,
    destination_ids: JSON.parse(row.destination_ids) as string[],
    escalation_destination_ids: JSON.parse(row.escalation_destination_ids) as string[],
    destination_names: JSON.parse(row.destination_names) as string[],
    escalation_destination_names: JSON.parse(row.escalation_destination_names) as string[],
    enabled: Boolean(row.enabled),
    source: row.source as AlertRuleRecord['source'],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function rowOf(rule: AlertRuleRecord): AlertRulesTable {
  return {
    id: rule.id,
    name: rule.name,
    trigger: rule.trigger,
    condition: JSON.stringify(rule.condition),
    destination_ids: JSON.stringify(rule.destination_ids),
    escalation_destination_ids: JSON.stringify(rule.escalation_destination_ids),
    destination_names: JSON.stringify(rule.destination_names),
    escalation_destination_names: JSON.stringify(rule.escalation_destination_names),
    enabled: rule.enabled ? 1 : 0,
    source: rule.source,
    created_at: rule.created_at,
    updated_at: rule.updated_at,
  };
}

export class AlertRepository {
  readonly notices: AlertNoticeRepository;
  readonly conditions: AlertConditionRepository;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
    engine: StoreEngine,
  ) {
    this.notices = new AlertNoticeRepository(db, changes, engine);
    this.conditions = new AlertConditionRepository(db, engine);
  }

  private on(tx?: StoreTx): Kysely<Database> {
    return tx ? executorOf(tx) : this.db;
  }

  async rules(tx?: StoreTx): Promise<AlertRuleRecord[]> {
    const rows = await this.on(tx).selectFrom('alert_rules').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(ruleOf);
  }

  async rule(id: string, tx?: StoreTx): Promise<AlertRuleRecord | undefined> {
    const row = await this.on(tx).selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
    return row && ruleOf(row);
  }

  /** Inserts a rule; AlertNameTakenError when its name is taken. */
  async createRule(rule: AlertRuleRecord, tx: StoreTx): Promise<AlertRuleRecord> {
    await this.changes.write('alerts', tx, async (trx) => {
      const taken = await trx.selectFrom('alert_rules').select('id').where('name', '=', rule.name).executeTakeFirst();
      if (taken) throw new AlertNameTakenError(`a rule named "${rule.name}" exists`);
      await trx.insertInto('alert_rules').values(rowOf(rule)).execute();
    });
    return rule;
  }

  /** Adds a bundle rule unless a rule of that name exists (then the stored one counts); true when added. */
  async addRuleIfAbsent(rule: AlertRuleRecord): Promise<boolean> {
    return this.changes.write('alerts', undefined, async (trx) => {
      const added = await trx.insertInto('alert_rules').values(rowOf(rule)).onConflict((oc) => oc.column('name').doNothing()).returning('id').execute();
      return added.length > 0;
    });
  }

  /** Replaces a rule's fields; undefined when there is no such rule. */
  async updateRule(rule: AlertRuleRecord, tx: StoreTx): Promise<AlertRuleRecord | undefined> {
    return this.changes.write('alerts', tx, async (trx) => {
      const taken = await trx.selectFrom('alert_rules').select('id').where('name', '=', rule.name).where('id', '<>', rule.id).executeTakeFirst();
      if (taken) throw new AlertNameTakenError(`a rule named "${rule.name}" exists`);
      const { id: _id, created_at: _created, ...set } = rowOf(rule);
      const before = await trx.selectFrom('alert_rules').select('condition').where('id', '=', rule.id).executeTakeFirst();
      // A changed condition starts its episodes over: what held under the old one says nothing of the new.
      if (before && before.condition !== set.condition) await trx.deleteFrom('alert_conditions').where('rule_id', '=', rule.id).execute();
      const res = await trx.updateTable('alert_rules').set(set).where('id', '=', rule.id).executeTakeFirst();
      return Number(res.numUpdatedRows) > 0 ? rule : undefined;
    });
  }

  async deleteRule(id: string, tx: StoreTx): Promise<boolean> {
    return this.changes.write('alerts', tx, async (trx) => {
      await trx.deleteFrom('alert_conditions').where('rule_id', '=', id).execute();
      const res = await trx.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  async destinations(tx?: StoreTx): Promise<AlertDestinationRecord[]> {
    return this.on(tx).selectFrom('alert_destinations').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async destination(id: string, tx?: StoreTx): Promise<AlertDestinationRecord | undefined> {
    return this.on(tx).selectFrom('alert_destinations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Those of `ids` that name no destination. */
  async unknownDestinationIds(ids: readonly string[], tx?: StoreTx): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.on(tx).selectFrom('alert_destinations').select('id').where('id', 'in', [...ids]).execute();
    const known = new Set(rows.map((r) => r.id));
    return ids.filter((id) => !known.has(id));
  }

  async createDestination(destination: AlertDestinationRecord, tx: StoreTx): Promise<AlertDestinationRecord> {
    await this.changes.write('alerts', tx, async (trx) => {
      const taken = await trx.selectFrom('alert_destinations').select('id').where('name', '=', destination.name).executeTakeFirst();
      if (taken) throw new AlertNameTakenError(`a destination named "${destination.name}" exists`);
      await trx.insertInto('alert_destinations').values(destination).execute();
    });
    return destination;
  }

  /**
   * Deletes a destination no rule names (DestinationInUseError otherwise) and cancels its pending
   * notices; false when there is no such destination.
   */
  async deleteDestination(id: string, now: string, tx: StoreTx): Promise<boolean> {
    return this.changes.write('alerts', tx, async (trx) => {
      const destination = await trx.selectFrom('alert_destinations').selectAll().where('id', '=', id).executeTakeFirst();
      if (!destination) return false;
      const users = (await this.rules(tx)).filter((r) =>
        [...r.destination_ids, ...r.escalation_destination_ids].includes(id) || [...r.destination_names, ...r.escalation_destination_names].includes(destination.name),
      );
      if (users.length) throw new DestinationInUseError(users.map((r) => r.name));
      await trx
        .updateTable('alert_notices')
        .set({ status: 'cancelled', next_attempt_at: null, lease_owner: null, lease_until: null, last_error: `destination deleted at ${now}` })
        .where('destination_id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      await trx.deleteFrom('alert_destinations').where('id', '=', id).execute();
      return true;
    });
  }

  /** Silences, newest first: those in force at `now`, and with includeEnded every other too. */
  async silences(now: string, includeEnded: boolean, tx?: StoreTx): Promise<AlertSilenceRecord[]> {
    let q = this.on(tx).selectFrom('alert_silences').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc');
    if (!includeEnded) q = q.where('ended_at', 'is', null).where('until', '>', now);
    return q.execute();
  }

  async silence(id: string, tx?: StoreTx): Promise<AlertSilenceRecord | undefined> {
    return this.on(tx).selectFrom('alert_silences').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async createSilence(silence: AlertSilenceRecord, tx: StoreTx): Promise<AlertSilenceRecord> {
    await this.changes.write('alerts', tx, (trx) => trx.insertInto('alert_silences').values(silence).execute());
    return silence;
  }

  /** Ends a silence at `now` unless it had ended; the silence as it is after, and whether this ended it. */
  async endSilence(id: string, now: string, tx: StoreTx): Promise<{ silence: AlertSilenceRecord; ended: boolean } | undefined> {
    return this.changes.write('alerts', tx, async (trx) => {
      const before = await trx.selectFrom('alert_silences').selectAll().where('id', '=', id).executeTakeFirst();
      if (!before) return undefined;
      if (before.ended_at !== null || before.until <= now) return { silence: before, ended: false };
      const set: Updateable<AlertSilencesTable> = { ended_at: now };
      await trx.updateTable('alert_silences').set(set).where('id', '=', id).execute();
      return { silence: { ...before, ended_at: now }, ended: true };
    });
  }
}

