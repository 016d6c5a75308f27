/**
 * Gives every entity of a `managed_container: true` type its container. Entity creation only
 * notifies (it happens inside the handler's transaction); the start happens here, after the
 * entity has committed, and a boot pass covers entities created while no runtime was watching.
 * A start that fails is recorded as a `failed` container with the reason (and logged), so it is
 * visible and not retried in a loop. While a reset runs, starts wait: the reset owns containers.
 *
 * With several servers on one store, one of them supervises containers (the oldest live server, see
 * ServerRegistry.supervisor): only it starts them, and when it dies the next oldest takes over by
 * running the boot pass (`recover`) and then sweeps for entities that have none, since entities
 * created on other servers only reach it through the store.
 */
import type { Store } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import type { RuntimeLog } from '../runtime-log';
import { noopRuntimeObserver, type RuntimeObserver } from '../observer';
import { newId } from '../ids';
import type { ContainerManager } from './container-manager';
import { ContainerRecords } from './container-records';

/** How long a notified entity may take to become visible (its transaction committing) before it is dropped. */
const VISIBILITY_RETRIES = 20;
const FLUSH_DELAY_MS = 20;

export class EntityContainers {
  private readonly managedTypes: Set<string>;
  private readonly pending = new Map<string, number>();
  private readonly records: ContainerRecords;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private paused = false;
  private stopped = false;
  /** Whether this server supervised containers at the last heartbeat (or at boot). */
  private supervising = false;
  private beatsSinceSweep = 0;

  constructor(
    private readonly store: Store,
    bundle: LoadedBundle,
    private readonly manager: ContainerManager,
    private readonly log: RuntimeLog,
    /** Whether this server supervises containers now (always, with one process). */
    private readonly supervises: () => Promise<boolean> = async () => true,
    private readonly observer: RuntimeObserver = noopRuntimeObserver,
  ) {
    this.managedTypes = new Set(Object.entries(bundle.definition.entity_types).filter(([, t]) => t.managed_container).map(([name]) => name));
    this.records = new ContainerRecords(store, store.clock);
  }

  get enabled(): boolean {
    return this.managedTypes.size > 0;
  }

  /** No entity waits for its container to be started, and no start is running. */
  get idle(): boolean {
    return this.pending.size === 0 && this.flushing === undefined && this.timer === undefined;
  }

  /** Called when an entity is created (possibly before its transaction commits). */
  entityCreated(entityId: string, entityType: string): void {
    if (this.stopped || !this.managedTypes.has(entityType)) return;
    if (!this.pending.has(entityId)) this.pending.set(entityId, 0);
    this.schedule();
  }

  /** At boot: whether this server supervises now, so that the next heartbeat does not take over again. */
  async noteSupervisor(): Promise<void> {
    this.supervising = await this.supervises();
  }

  /**
   * On each heartbeat: the server that became the supervisor (its predecessor died) runs the boot
   * pass; the supervisor sweeps every few beats for entities created elsewhere.
   */
  async heartbeat(): Promise<void> {
    if (!this.enabled) return;
    const supervises = await this.supervises();
    const became = supervises && !this.supervising;
    this.supervising = supervises;
    if (became) await this.recover().catch(() => undefined);
    else if (supervises && ++this.beatsSinceSweep >= 5) {
      this.beatsSinceSweep = 0;
      await this.startMissing().catch(() => undefined);
    }
  }

  /** Boot (or taking over supervision): restart containers lost with the previous supervisor, and start missing ones. */
  async recover(): Promise<void> {
    if (!this.enabled || !(await this.supervises())) return;
    const types = [...this.managedTypes];
    const entities = await this.store.entities.ofTypes(types);
    const typeOf = new Map(entities.map((e) => [e.entity_id, e.entity_type]));
    if (this.manager.recover) await this.manager.recover(typeOf);
    await this.startMissing(entities);
  }

  /** Entities of managed types with no container record yet (created on another server) get one. */
  async startMissing(entities?: { entity_id: string }[]): Promise<void> {
    if (!this.enabled || this.paused || this.stopped) return;
    const all = entities ?? (await this.store.entities.ofTypes([...this.managedTypes]));
    const withRecord = await this.store.containers.entityIds();
    for (const e of all) if (!withRecord.has(e.entity_id) && !this.pending.has(e.entity_id)) this.pending.set(e.entity_id, 0);
    this.observer.onContainerSweep();
    this.schedule();
  }

  /** Waits for starts under way and holds new ones until resume (reset quiescence). */
  async pause(): Promise<void> {
    this.paused = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
  }

  resume(): void {
    this.paused = false;
    this.schedule();
  }

  /** Forgets entities a reset removed, so no container starts for them afterwards. */
  forgetPending(): void {
    this.pending.clear();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
  }

  private schedule(): void {
    if (this.paused || this.stopped || this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.flushing) {
        void this.flushing.then(() => this.schedule());
        return;
      }
      this.flushing = this.flush()
        .catch(() => undefined)
        .finally(() => {
          this.flushing = undefined;
          this.schedule();
        });
    }, FLUSH_DELAY_MS);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    // Another server supervises: it finds these entities through the store.
    if (!(await this.supervises())) {
      this.pending.clear();
      return;
    }
    for (const [entityId, tries] of [...this.pending]) {
      if (this.paused || this.stopped) return;
      const entity = await this.store.entities.get(entityId);
      if (!entity) {
        // Not committed yet, or rolled back: look again shortly, then give up.
        if (tries + 1 >= VISIBILITY_RETRIES) this.pending.delete(entityId);
        else this.pending.set(entityId, tries + 1);
        continue;
      }
      this.pending.delete(entityId);
      if ((await this.records.forEntity(entityId)).length > 0) continue;
      try {
        await this.manager.start({ entityId, entityType: entity.entity_type });
      } catch (err) {
        const message = `no container for ${entity.entity_type} ${entityId}: ${(err as Error).message}`;
        // One write: a reader never sees the failed record without its reason.
        await this.records
          .insert({ containerId: newId('ctr', this.store.clock.now()), entityId, implementation: this.manager.implementation, status: 'failed', pid: null, lastError: message })
          .catch(() => undefined);
        await this.log.write({ level: 'warn', component: 'containers', error_code: 'CONTAINER_START_FAILED', message, entity_id: entityId }).catch(() => undefined);
      }
    }
  }
}
