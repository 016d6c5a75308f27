import { type Kysely, type Selectable } from 'kysely';
import type { Database, RunsTable } from '../schema';

export interface RunView extends Selectable<RunsTable> {
  event_count: number;
  dead_letter_count: number;
}

/** Read side of runs: one run with the counts of its events and dead letters. */
export class RunReadRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(runId: string): Promise<RunView | undefined> {
    const run = await this.db.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    if (!run) return undefined;
    const [events, deadLetters] = await Promise.all([
      this.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow(),
      this.db.selectFrom('dead_letters').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow(),
    ]);
    return { ...run, event_count: Number(events.n), dead_letter_count: Number(deadLetters.n) };
  }
}
