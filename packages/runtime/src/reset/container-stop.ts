/**
 * Reset owner 4, managed-container stop: selects every container record that may still be alive
 * and asks the configured container manager to stop it. A container that will not stop is a
 * reported failure naming its id (the reset becomes partial_failure); its record stays as
 * stop_failed so the next reset tries again.
 */
import type { Store } from '@switchboard/store';
import { STOPPABLE_STATUSES, type ContainerRecord, type StopOutcome } from '../containers/container-manager';
import type { ResetContext } from './reset-context';

/** Stops run this many at a time: bounded so a slow engine does not see a burst of requests. */
const STOP_CONCURRENCY = 4;

export interface ContainerStopPreview {
  [key: string]: unknown;
  implementation: string;
  would_stop: { container_id: string; entity_id: string; implementation: string; status: string }[];
  count: number;
}

export interface ContainerStopOutcome {
  [key: string]: unknown;
  implementation: string;
  stopped: string[];
  already_stopped: string[];
  failed: { container_id: string; entity_id: string; error: string }[];
}

export function listContainersToStop(store: Store): Promise<ContainerRecord[]> {
  return store.containers.withStatus(STOPPABLE_STATUSES);
}

export async function previewContainerStop(ctx: ResetContext): Promise<ContainerStopPreview> {
  const records = await listContainersToStop(ctx.store);
  return {
    implementation: ctx.containers.implementation,
    would_stop: records.map((r) => ({ container_id: r.container_id, entity_id: r.entity_id, implementation: r.implementation, status: r.status })),
    count: records.length,
  };
}

export async function stopContainers(ctx: ResetContext): Promise<ContainerStopOutcome> {
  const records = await listContainersToStop(ctx.store);
  const outcome: ContainerStopOutcome = { implementation: ctx.containers.implementation, stopped: [], already_stopped: [], failed: [] };
  const stopOne = async (record: ContainerRecord): Promise<StopOutcome> => {
    if (record.status === 'failed') {
      // Never started, or gave up restarting: no process or engine container is left to stop.
      await ctx.store.containers.remove(record.container_id);
      return { ok: true, containerId: record.container_id, entityId: record.entity_id, alreadyStopped: true };
    }
    if (record.implementation !== ctx.containers.implementation) {
      return {
        ok: false,
        containerId: record.container_id,
        entityId: record.entity_id,
        error: `container ${record.container_id} was started by the ${record.implementation} container manager, but this runtime uses ${ctx.containers.implementation}; stop it by hand`,
      };
    }
    try {
      return await ctx.containers.stop(record.container_id);
    } catch (err) {
      return { ok: false, containerId: record.container_id, entityId: record.entity_id, error: `stopping container ${record.container_id} failed: ${(err as Error).message}` };
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const record = records[next++]!;
      const result = await stopOne(record);
      if (!result.ok) outcome.failed.push({ container_id: result.containerId, entity_id: result.entityId || record.entity_id, error: result.error });
      else if (result.alreadyStopped) outcome.already_stopped.push(result.containerId);
      else outcome.stopped.push(result.containerId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(STOP_CONCURRENCY, records.length) }, worker));
  return outcome;
}
