/**
 * What a subscriber handler sees and returns. Handlers do their slow work (model and tool calls)
 * outside any transaction and return `apply`, which the dispatcher runs in the same transaction
 * that marks the delivery delivered: a handler's writes and emitted events commit exactly once.
 */
import type { Clock, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import type { ModelProvider } from './providers/provider';
import type { RuntimeLog } from './runtime-log';
import type { ToolRegistry } from './tool-servers/registry';
import type { RuntimeObserver } from './observer';

/** An event as its writer knows it before the insert: everything but its seq (see WrittenEvent). */
export interface EmittedEvent {
  event_id: string;
  created_at: string;
  subscribers: string[];
  delivery_ids: string[];
}

export interface RuntimeServices {
  bundle: LoadedBundle;
  store: Store;
  clock: Clock;
  log: RuntimeLog;
  tools: ToolRegistry;
  provider: ModelProvider;
  /** Told of delivery outcomes and handler durations (see observer.ts). */
  observer: RuntimeObserver;
  /** Told when an entity is created (inside its transaction): managed entities get a container after it commits. */
  onEntityCreated?: (entityId: string, entityType: string) => void;
}

export interface DeliveryRecord {
  delivery_id: string;
  event_id: string;
  run_id: string | null;
  subscriber_id: string;
  subscriber_type: 'node' | 'agent';
  attempts: number;
  max_attempts: number;
}

export interface EventRecord {
  event_id: string;
  event_name: string;
  payload: Record<string, unknown>;
  entity_id: string | null;
  run_id: string | null;
  chain_depth: number;
  created_at: string;
  seq: number;
  /** The W3C context stored with the event: a delivery's span continues it. */
  traceparent?: string | null;
}

export interface DeliveryContext {
  services: RuntimeServices;
  delivery: DeliveryRecord;
  event: EventRecord;
  /** 1-based attempt number of this delivery. */
  attempt: number;
  signal: AbortSignal;
}

export interface EmitOptions {
  entity_id?: string | null;
}

/**
 * Emits an event in the handler's transaction. It may be written together with the events of
 * other handlers that complete at the same time, so its seq is not known yet.
 */
export type Emit = (eventName: string, payload: Record<string, unknown>, options?: EmitOptions) => Promise<EmittedEvent>;

export interface HandlerOutcome {
  apply?: (trx: StoreTx, emit: Emit) => Promise<void>;
}

export interface SubscriberHandler {
  handle(ctx: DeliveryContext): Promise<HandlerOutcome>;
}
