/** The `containers` table, shared by both container manager implementations. */
import type { Clock, Store } from '@switchboard/store';
import { STOPPABLE_STATUSES, type ContainerImplementation, type ContainerRecord, type ContainerStatus } from './container-manager';

export class ContainerRecords {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async insert(record: {
    containerId: string;
    entityId: string;
    implementation: ContainerImplementation;
    status: ContainerStatus;
    pid: number | null;
  }): Promise<ContainerRecord> {
    const row: ContainerRecord = {
      container_id: record.containerId,
      entity_id: record.entityId,
      implementation: record.implementation,
      status: record.status,
      pid: record.pid,
      started_at: this.clock.now().toISOString(),
      stopped_at: null,
      last_error: null,
    };
    await this.store.db.insertInto('containers').values(row).execute();
    return row;
  }

  async update(containerId: string, patch: { status?: ContainerStatus; pid?: number | null; last_error?: string | null; stopped?: boolean }): Promise<void> {
    const { stopped, ...rest } = patch;
    await this.store.db
      .updateTable('containers')
      .set({ ...rest, ...(stopped ? { stopped_at: this.clock.now().toISOString() } : {}) })
      .where('container_id', '=', containerId)
      .execute();
  }

  async remove(containerId: string): Promise<void> {
    await this.store.db.deleteFrom('containers').where('container_id', '=', containerId).execute();
  }

  async get(containerId: string): Promise<ContainerRecord | undefined> {
    return this.store.db.selectFrom('containers').selectAll().where('container_id', '=', containerId).executeTakeFirst();
  }

  async forEntity(entityId: string): Promise<ContainerRecord[]> {
    return this.store.db.selectFrom('containers').selectAll().where('entity_id', '=', entityId).execute();
  }

  async listStoppable(implementation: ContainerImplementation): Promise<ContainerRecord[]> {
    return this.store.db
      .selectFrom('containers')
      .selectAll()
      .where('implementation', '=', implementation)
      .where('status', 'in', [...STOPPABLE_STATUSES])
      .orderBy('started_at')
      .orderBy('container_id')
      .execute();
  }
}
