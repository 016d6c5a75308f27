/**
 * A delivery as the dispatcher holds it: claimed (or leased as it was written) with its event,
 * and the rules every step of its dispatch shares (the lease it holds, the backoff of a retry).
 */
import type { DeliveryLease, EventsTable, Selectable } from '@switchboard/store';
import type { DeliveryRecord, EventRecord, RuntimeServices } from './handler';

/** A claimed delivery with its event, read with the claim. */
export type ClaimedDelivery = DeliveryRecord & { event: EventRecord };

/** What a delivery this process leases as it writes it starts with (see Dispatcher.reserve). */
export interface LeaseAtWrite {
  status: 'in_progress';
  attempts: 1;
  lease_owner: string;
  lease_expires_at: string;
}

/** The delivery was claimed again by someone else (its lease expired) before its outcome was written. */
export class LeaseLost extends Error {
  constructor(deliveryId: string) {
    super(`lease on ${deliveryId} was lost before completion`);
  }
}

export const MAX_BACKOFF_MS = 60_000;

export function backoffFor(baseMs: number, attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempt - 1));
}

export function subscriberKey(type: string, id: string): string {
  return `${type}:${id}`;
}

/** The lease `owner` holds on `d` for its current attempt: every write of its outcome is conditional on it. */
export function leaseOf(d: DeliveryRecord, owner: string): DeliveryLease {
  return { delivery_id: d.delivery_id, owner, attempts: d.attempts };
}

export function toEventRecord(e: Selectable<EventsTable>): EventRecord {
  return {
    event_id: e.event_id,
    event_name: e.event_name,
    payload: JSON.parse(e.payload) as Record<string, unknown>,
    entity_id: e.entity_id,
    run_id: e.run_id,
    chain_depth: e.chain_depth,
    created_at: e.created_at,
    seq: Number(e.seq),
    traceparent: e.traceparent,
  };
}

/** Writes a dispatcher log line; a failure to write it is dropped (the store itself is failing). */
export async function logDispatchProblem(services: RuntimeServices, level: 'warn' | 'error', code: string, message: string): Promise<void> {
  try {
    await services.log.write({ level, component: 'dispatcher', error_code: code, message });
  } catch {
    // The store itself is failing; the next loop iteration retries the work anyway.
  }
}
