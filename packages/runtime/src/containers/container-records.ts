/** Container records as both container manager implementations keep them (the SQL is the store's). */
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
    lastError?: string;
  }): Promise<ContainerRecord> {
    const row: ContainerRecord = {
      container_id: record.containerId,
      entity_id: record.entityId,
      implementation: record.implementation,
      status: record.status,
      pid: record.pid,
      started_at: this.clock.now().toISOString(),
      stopped_at: null,
      last_error: record.lastError ?? null,
    };
    await this.store.containers.insert(row);
    return row;
  }

  async update(containerId: string, patch: { status?: ContainerStatus; pid?: number | null; last_error?: string | null; stopped?: boolean }): Promise<void> {
    const { stopped, ...rest } = patch;
    await this.store.containers.update(containerId, { ...rest, ...(stopped ? { stopped_at: this.clock.now().toISOString() } : {}) });
  }

  /** Gives a record its final id (one statement: the record is never missing in between). */
  async rename(containerId: string, newId: string, patch: { status: ContainerStatus; pid: number | null }): Promise<void> {
    await this.store.containers.update(containerId, { container_id: newId, ...patch });
  }

  remove(containerId: string): Promise<void> {
    return this.store.containers.remove(containerId);
  }

  get(containerId: string): Promise<ContainerRecord | undefined> {
    return this.store.containers.get(containerId);
  }

  forEntity(entityId: string): Promise<ContainerRecord[]> {
    return this.store.containers.forEntity(entityId);
  }

  listStoppable(implementation: ContainerImplementation): Promise<ContainerRecord[]> {
    return this.store.containers.withStatus(STOPPABLE_STATUSES, implementation);
  }
}
