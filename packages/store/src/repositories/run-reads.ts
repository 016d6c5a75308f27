import { type Kysely, type Selectable } from 'kysely';
import type { Database, RunsTable } from '../schema';

export interface RunView extends Selectable<RunsTable> {
  event_count: number;
  dead_letter_count: number;
  /** The traceparent of the run's first event: the trace the run started in (null untraced). */
  root_traceparent: string | null;
}

/** Everything that happened in one run, for its causal tree. */
export interface RunTreeRows {
  events: { event_id: string; event_name: string; created_at: string; source: string; parent_event_id: string | null; chain_depth: number; replay_of_event_id: string | null }[];
  deliveries: { delivery_id: string; event_id: string; subscriber_id: string; subscriber_type: string; status: string; attempts: number; reason_code: string | null; last_error: string | null; updated_at: string; redrive_of_dead_letter_id: string | null; session_id: string | null }[];
  dead_letters: { dead_letter_id: string; event_id: string; delivery_id: string | null; subscriber_id: string | null; reason_code: string | null; created_at: string }[];
  turns: { turn_id: string; session_id: string; agent_id: string; trigger_event_id: string; parse_ok: number; latency_ms: number; started_at: string | null; error: string | null }[];
  mailbox: { mailbox_id: string; type: string; status: string; source_event_id: string | null; created_at: string; decided_at: string | null; emitted_event_id: string | null }[];
  truncated: boolean;
  /** Events replays published of this run's events (in runs of their own). */
  replays: { event_id: string; run_id: string | null; replay_of_event_id: string | null }[];
}

/** A run's tree shows at most this many events; a bigger run is cut (and says so). */
const TREE_EVENT_LIMIT = 1000;

/** Read side of runs: one run with the counts of its events and dead letters. */
export class RunReadRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(runId: string): Promise<RunView | undefined> {
    const run = await this.db
      .selectFrom('runs')
      .selectAll('runs')
      .select((eb) => eb.selectFrom('events').select('events.traceparent').whereRef('events.event_id', '=', 'runs.root_event_id').limit(1).as('root_traceparent'))
      .where('run_id', '=', runId)
      .executeTakeFirst();
    if (!run) return undefined;
    const [events, deadLetters] = await Promise.all([
      this.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow(),
      this.db.selectFrom('dead_letters').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow(),
    ]);
    return { ...run, root_traceparent: run.root_traceparent ?? null, event_count: Number(events.n), dead_letter_count: Number(deadLetters.n) };
  }

  /** The run's events (oldest first) with their deliveries, dead letters, agent turns and mailbox items. */
  async tree(runId: string): Promise<RunTreeRows> {
    const events = await this.db
      .selectFrom('events')
      .select(['event_id', 'event_name', 'created_at', 'source', 'parent_event_id', 'chain_depth', 'replay_of_event_id'])
      .where('run_id', '=', runId)
      .orderBy('created_at')
      .orderBy('seq')
      .limit(TREE_EVENT_LIMIT + 1)
      .execute();
    const truncated = events.length > TREE_EVENT_LIMIT;
    const kept = events.slice(0, TREE_EVENT_LIMIT);
    const ids = kept.map((e) => e.event_id);
    if (ids.length === 0) return { events: [], deliveries: [], dead_letters: [], turns: [], mailbox: [], truncated, replays: [] };
    const [deliveries, dead_letters, turns, mailbox, replays] = await Promise.all([
      this.db
        .selectFrom('deliveries')
        .select(['delivery_id', 'event_id', 'subscriber_id', 'subscriber_type', 'status', 'attempts', 'reason_code', 'last_error', 'updated_at', 'redrive_of_dead_letter_id', 'session_id'])
        .where('event_id', 'in', ids)
        .orderBy('created_at')
        .execute(),
      this.db.selectFrom('dead_letters').select(['dead_letter_id', 'event_id', 'delivery_id', 'subscriber_id', 'reason_code', 'created_at']).where('event_id', 'in', ids).execute(),
      this.db
        .selectFrom('turns as t')
        .innerJoin('conversations as c', 'c.session_id', 't.session_id')
        .select(['t.turn_id', 't.session_id', 'c.agent_id', 't.trigger_event_id', 't.parse_ok', 't.latency_ms', 't.started_at', 't.error'])
        .where('t.trigger_event_id', 'in', ids)
        .orderBy('t.turn_index')
        .execute(),
      this.db
        .selectFrom('mailbox_items')
        .select(['mailbox_id', 'type', 'status', 'source_event_id', 'created_at', 'decided_at', 'emitted_event_id'])
        .where((eb) => eb.or([eb('run_id', '=', runId), eb('source_event_id', 'in', ids)]))
        .execute(),
      this.db.selectFrom('events').select(['event_id', 'run_id', 'replay_of_event_id']).where('replay_of_event_id', 'in', ids).orderBy('seq').execute(),
    ]);
    return { events: kept, deliveries, dead_letters, turns, mailbox, truncated, replays };
  }
}
