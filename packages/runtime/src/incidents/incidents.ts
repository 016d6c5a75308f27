/**
 * Incidents: warn-and-above log records grouped by (component, error code, cause), with the state
 * an operator gave each group. The store reads the window's aggregates, samples and states as
 * sets; what a group's state is now, how a list is filtered, sorted and paged, and which state
 * changes are allowed are decided here.
 */
import { RpcError, type Result } from '@switchboard/contract';
import { incidentGroupKey, parseIncidentId, type Clock, type IncidentAggregate, type IncidentKey, type IncidentStateName, type Store, type StoreTx } from '@switchboard/store';
import type { OnEffectCommit } from '../effect-commit';
import { incidentOrder, trend, trendSpan, type IncidentPosition, type IncidentSort } from './incident-order';
import { activityWithRegressions, currentState, matchesState, NEVER_CHANGED, type IncidentActivityEntry, type IncidentStateFilter, type IncidentStateView } from './incident-state';

export interface IncidentQuery {
  /** Inclusive start and exclusive end of the look-back window. */
  windowStart: string;
  windowEnd: string;
  component?: string;
  mcpOnly?: boolean;
  sort: IncidentSort;
  /** Keep only incidents in these states (all when absent). */
  states?: IncidentStateFilter[];
  /** "Now" for ignore-until times; the window's end when absent. */
  now?: string;
  limit: number;
  after?: IncidentPosition;
  /** Equal buckets across the window; 0 leaves histograms out. */
  histogramBuckets: number;
}

export interface IncidentRow extends IncidentKey {
  cause_key: string;
  count: number;
  first_seen: string;
  last_seen: string;
  level_rank: number;
  sample_message: string;
  /** Up to five, latest first. */
  sample_log_ids: string[];
  histogram?: number[];
  /** Occurrences in the window's last hour against the window's hourly rate (1 = steady). */
  trend: number;
  state: IncidentStateView;
}

export interface IncidentPage {
  incidents: IncidentRow[];
  next?: IncidentPosition;
}

export interface IncidentUpdate {
  incident_id: string;
  state: IncidentStateName;
  note?: string;
  ignore_until?: string;
  ignore_occurrences?: number;
  actorTokenId: string;
}

export type IncidentUpdateResult = Result<'runtime.incident_update'>;

type RankedGroup = IncidentAggregate & { trend: number };

export class Incidents {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Told after a state change: a resolved incident's next occurrence is a regression alert rules may notify. */
    private readonly stateChanged: () => void,
  ) {}

  async page(q: IncidentQuery): Promise<IncidentPage> {
    const groups = await this.rankedGroups(q);
    const states = await this.stateViews(q.now ?? q.windowEnd);
    const stateOf = (g: IncidentKey) => states.get(incidentGroupKey(g)) ?? NEVER_CHANGED;
    const order = incidentOrder(q.sort);
    const { after, states: wanted } = q;
    const sorted = groups
      .filter((g) => !wanted || matchesState(stateOf(g), wanted))
      .sort(order)
      .filter((g) => !after || order(g, after) > 0);
    const pageGroups = sorted.slice(0, q.limit);
    const samples = await this.store.incidents.samples(q, pageGroups);
    const incidents = pageGroups.map((g): IncidentRow => {
      const sample = samples.get(incidentGroupKey(g)) ?? [];
      const row: IncidentRow = {
        component: g.component,
        error_code: g.error_code,
        cause_key: g.cause_key,
        count: g.count,
        first_seen: g.first_seen,
        last_seen: g.last_seen,
        level_rank: g.level_rank,
        sample_message: sample[0]?.message ?? '',
        sample_log_ids: sample.map((s) => s.log_id),
        trend: g.trend,
        state: stateOf(g),
      };
      if (q.histogramBuckets > 0) row.histogram = g.histogram;
      return row;
    });
    const last = pageGroups[pageGroups.length - 1];
    if (sorted.length > q.limit && last) {
      return {
        incidents,
        next: { count: last.count, last_seen: last.last_seen, component: last.component, error_code: last.error_code, cause_key: last.cause_key, first_seen: last.first_seen, level_rank: last.level_rank, trend: last.trend },
      };
    }
    return { incidents };
  }

  /**
   * Incidents open in the window (never given a state, reopened, regressed, or ignored no longer)
   * counted by their highest level rank: what the console's "open" filter shows, without pages,
   * samples or histograms.
   */
  async openCountsByLevel(window: { windowStart: string; windowEnd: string }): Promise<Map<number, number>> {
    const groups = await this.store.incidents.windowGroups({ ...window, histogramBuckets: 0 });
    const states = await this.stateViews(window.windowEnd);
    const counts = new Map<number, number>();
    for (const g of groups) {
      if ((states.get(incidentGroupKey(g)) ?? NEVER_CHANGED).state !== 'open') continue;
      counts.set(g.level_rank, (counts.get(g.level_rank) ?? 0) + 1);
    }
    return counts;
  }

  /** Every group an operator gave a state, as it stands at `now`, by group key. */
  async stateViews(now: string): Promise<Map<string, IncidentStateView>> {
    const records = await this.store.incidents.states();
    return new Map(records.map((r) => [incidentGroupKey(r), currentState(r, now)]));
  }

  /** A group's state changes and regressions, oldest first; undefined when the id names no group that ever occurred. */
  async activity(incidentId: string): Promise<IncidentActivityEntry[] | undefined> {
    const key = parseIncidentId(incidentId);
    if (!key || !(await this.store.incidents.exists(key))) return undefined;
    return activityWithRegressions(await this.store.incidents.activity(key));
  }

  /**
   * runtime.incident_update: sets an incident group's state. Ignore options belong to `ignored`
   * only; an incident id must name a group that has had at least one record. `onCommit` commits
   * with the state change.
   */
  async update(input: IncidentUpdate, onCommit?: OnEffectCommit<IncidentUpdateResult>): Promise<IncidentUpdateResult> {
    const key = parseIncidentId(input.incident_id);
    if (!key || !(await this.store.incidents.exists(key))) {
      throw new RpcError('NOT_FOUND', `No incident ${input.incident_id}`, { resource: 'incident', id: input.incident_id });
    }
    if (input.state !== 'ignored' && (input.ignore_until !== undefined || input.ignore_occurrences !== undefined)) {
      throw new RpcError('INVALID_PARAMS', 'ignore_until and ignore_occurrences go with state "ignored" only', { field: input.ignore_until !== undefined ? 'ignore_until' : 'ignore_occurrences' });
    }
    const now = this.clock.now().toISOString();
    if (input.ignore_until !== undefined && input.ignore_until <= now) {
      throw new RpcError('INVALID_PARAMS', 'ignore_until must be in the future', { field: 'ignore_until' });
    }
    const result: IncidentUpdateResult = { incident_id: input.incident_id, state: input.state, regressed: false, state_changed_at: now };
    await this.store.incidents.setState(
      key,
      {
        state: input.state,
        actor_token_id: input.actorTokenId,
        note: input.note?.trim() || null,
        ignore_until: input.ignore_until ?? null,
        ignore_occurrences: input.ignore_occurrences ?? null,
        now,
      },
      onCommit && ((tx: StoreTx) => onCommit(tx, result)),
    );
    this.stateChanged();
    return result;
  }

  /** The window's groups with their trends. */
  private async rankedGroups(q: IncidentQuery): Promise<RankedGroup[]> {
    const groups = await this.store.incidents.windowGroups(q);
    if (groups.length === 0) return [];
    const lastHour = new Map((await this.store.incidents.groupCounts({ ...q, ...trendSpan(q) })).map((c) => [incidentGroupKey(c), c.count]));
    return groups.map((g) => ({ ...g, trend: trend(lastHour.get(incidentGroupKey(g)) ?? 0, g.count, q) }));
  }
}
