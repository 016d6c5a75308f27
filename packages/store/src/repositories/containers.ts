/** The `containers` table: one record per managed container, whichever implementation runs it. */
import type { Kysely, Updateable } from 'kysely';
import type { ContainersTable, Database } from '../schema';

export type ContainerRow = ContainersTable;

export class ContainerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ContainerRow): Promise<void> {
    await this.db.insertInto('containers').values(row).execute();
  }

  async update(containerId: string, patch: Updateable<ContainersTable>): Promise<void> {
    await this.db.updateTable('containers').set(patch).where('container_id', '=', containerId).execute();
  }

  async remove(containerId: string): Promise<void> {
    await this.db.deleteFrom('containers').where('container_id', '=', containerId).execute();
  }

  get(containerId: string): Promise<ContainerRow | undefined> {
    return this.db.selectFrom('containers').selectAll().where('container_id', '=', containerId).executeTakeFirst();
  }

  forEntity(entityId: string): Promise<ContainerRow[]> {
    return this.db.selectFrom('containers').selectAll().where('entity_id', '=', entityId).execute();
  }

  /** Entities that have a container record, whatever its status. */
  async entityIds(): Promise<Set<string>> {
    return new Set((await this.db.selectFrom('containers').select('entity_id').execute()).map((r) => r.entity_id));
  }

  /** Records in one of `statuses` (of one implementation when given), oldest first. */
  withStatus(statuses: readonly string[], implementation?: string): Promise<ContainerRow[]> {
    let q = this.db.selectFrom('containers').selectAll().where('status', 'in', [...statuses]);
    if (implementation) q = q.where('implementation', '=', implementation);
    return q.orderBy('started_at').orderBy('container_id').execute();
  }
}
