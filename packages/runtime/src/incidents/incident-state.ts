/**
 * What an incident's state is now: the state an operator gave its group, as what happened since
 * changes it. A resolved group that occurred again is open and regressed; an ignored one is open
 * again once its time passed or its count of new occurrences was reached.
 */
import type { IncidentActivityRecord, IncidentStateName, IncidentStateRecord } from '@switchboard/store';

/** An incident group's state as the operator left it, with what happened since. */
export interface IncidentStateView {
  state: IncidentStateName;
  /** Resolved, then it occurred again: open once more. */
  regressed: boolean;
  regressed_at?: string;
  changed_at?: string;
  actor_token_id?: string;
  note?: string | null;
  ignore_until?: string | null;
  /** Ignored until N more occurrences: how many remain. */
  ignore_remaining?: number;
}

/** A state filter: `open` includes regressed incidents, `regressed` is only those. */
export type IncidentStateFilter = IncidentStateName | 'regressed';

/** A group no operator gave a state. */
export const NEVER_CHANGED: IncidentStateView = { state: 'open', regressed: false };

export function currentState(r: IncidentStateRecord, now: string): IncidentStateView {
  const base = { changed_at: r.changed_at, actor_token_id: r.actor_token_id, note: r.note };
  const view: IncidentStateView = { ...base, state: r.state, regressed: false };
  if (r.state === 'resolved') {
    return r.first_occurrence_since !== null ? { ...base, state: 'open', regressed: true, regressed_at: r.first_occurrence_since } : view;
  }
  if (r.state === 'ignored') {
    const limit = r.ignore_occurrences;
    const since = r.occurrences_since ?? 0;
    if ((r.ignore_until && now >= r.ignore_until) || (limit !== null && since >= limit)) return { ...base, state: 'open', regressed: false };
    return { ...view, ignore_until: r.ignore_until, ...(limit !== null ? { ignore_remaining: limit - since } : {}) };
  }
  return view;
}

export function matchesState(view: IncidentStateView, states: IncidentStateFilter[]): boolean {
  return states.some((s) => (s === 'regressed' ? view.regressed : s === view.state));
}

export interface IncidentActivityEntry {
  ts: string;
  actor_token_id: string;
  actor_token_name: string | null;
  /** A state an operator set, or `regressed` when a resolved incident occurred again. */
  action: IncidentStateName | 'regressed';
  note: string | null;
  ignore_until: string | null;
  ignore_occurrences: number | null;
}

/** The runtime, as the actor of the regressions it records. */
const REGRESSION_ACTOR = 'runtime';

/**
 * A group's state changes, oldest first, with a `regressed` entry after a resolve that an
 * occurrence followed before the next change.
 */
export function activityWithRegressions(records: IncidentActivityRecord[]): IncidentActivityEntry[] {
  const out: IncidentActivityEntry[] = [];
  for (const [i, r] of records.entries()) {
    out.push({ ts: r.ts, actor_token_id: r.actor_token_id, actor_token_name: r.actor_token_name, action: r.state, note: r.note, ignore_until: r.ignore_until, ignore_occurrences: r.ignore_occurrences });
    const next = records[i + 1];
    const occurred = r.state === 'resolved' ? r.first_occurrence_after : null;
    if (occurred && (!next || occurred < next.ts)) {
      out.push({ ts: occurred, actor_token_id: REGRESSION_ACTOR, actor_token_name: null, action: 'regressed', note: null, ignore_until: null, ignore_occurrences: null });
    }
  }
  return out;
}
