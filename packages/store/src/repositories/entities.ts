/**
 * Entity writes. An update is conditional on the revision the caller read, so a concurrent writer
 * (another process on PostgreSQL) makes it fail instead of losing an update; the caller decides
 * what that means.
 */
import { sql, type Kysely, type QueryResult, type Selectable, type Updateable } from 'kysely';
import type { Database, EntitiesTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { compiledOnce } from '../compiled-once';

export type EntityRow = Selectable<EntitiesTable>;

// An entity node reads and updates its entity on every delivery: compiled once (compiled-once.ts).
const entityById = compiledOnce((db, entityId: string) => db.selectFrom('entities').selectAll().where('entity_id', '=', entityId));

type UpdateAtRevision = (db: Kysely<Database>, entityId: string, revision: number, ...values: unknown[]) => Promise<QueryResult<unknown>>;
/** Per set of columns updated (their names joined), the update compiled once. */
const updatesAtRevision = new Map<string, UpdateAtRevision>();

function updateAtRevisionOf(columns: readonly string[]): UpdateAtRevision {
  const key = columns.join(',');
  let update = updatesAtRevision.get(key);
  if (!update) {
    update = compiledOnce((db, entityId: string, revision: number, ...values: unknown[]) =>
      db
        .updateTable('entities')
        .set(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as Updateable<EntitiesTable>)
        .where('entity_id', '=', entityId)
        .where('revision', '=', revision),
    );
    updatesAtRevision.set(key, update);
  }
  return update;
}

/** A value bound as one parameter (not an expression the builder would write into the text). */
const plainValue = (value: unknown) => value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint';

export class EntityRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(entityId: string, tx?: StoreTx): Promise<EntityRow | undefined> {
    return (await entityById(tx ? executorOf(tx) : this.db, entityId)).rows[0] as EntityRow | undefined;
  }

  /**
   * The entity's revision once `eventId` and every event before it had been handled: its change
   * records (one info record of the 'entities' component per revision) up to that event. Null
   * when the event is unknown.
   */
  async revisionAsOf(entityId: string, eventId: string): Promise<number | null> {
    const event = await this.db.selectFrom('events').select('seq').where('event_id', '=', eventId).executeTakeFirst();
    if (!event) return null;
    // Literals, not bound parameters: the partial index logs_entity_changes is only chosen for constants.
    const row = await this.db
      .selectFrom('logs as l')
      .innerJoin('events as e', 'e.event_id', 'l.event_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('l.entity_id', '=', entityId)
      .where(sql<boolean>`${sql.ref('l.component')} = 'entities' and ${sql.ref('l.level_rank')} = 1`)
      .where('e.seq', '<=', Number(event.seq))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async insert(tx: StoreTx, row: EntityRow): Promise<void> {
    await executorOf(tx).insertInto('entities').values(row).execute();
  }

  /** Applies `next` only while the entity is still at `revision`; false when it moved. */
  async updateAtRevision(tx: StoreTx, entityId: string, revision: number, next: Updateable<EntitiesTable>): Promise<boolean> {
    const set = Object.entries(next).filter(([, value]) => value !== undefined);
    if (set.length > 0 && set.every(([, value]) => plainValue(value))) {
      const res = await updateAtRevisionOf(set.map(([column]) => column))(executorOf(tx), entityId, revision, ...set.map(([, value]) => value));
      return Number(res.numAffectedRows ?? 0) === 1;
    }
    const res = await executorOf(tx).updateTable('entities').set(next).where('entity_id', '=', entityId).where('revision', '=', revision).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Id and type of the entities of the given types. */
  ofTypes(types: readonly string[]): Promise<{ entity_id: string; entity_type: string }[]> {
    if (types.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('entities').select(['entity_id', 'entity_type']).where('entity_type', 'in', [...types]).execute();
  }
}
