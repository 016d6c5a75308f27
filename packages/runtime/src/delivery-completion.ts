/**
 * Completion: a handler's result is written (its apply, the events it emitted, the delivery marked
 * delivered and its run settled) together with the others that finished in the same turn of the
 * event loop, conditional on each still holding its lease.
 */
import { Coalescer, type StoreTx } from '@switchboard/store';
import { LeaseLost } from './claimed-delivery';
import { prepareEvent, settleRunsIfDone, type NewEvent, type PreparedEvent } from './event-store';
import { HandlerFailure } from './handler-failure';
import type { DeliveryRecord, EmittedEvent, Emit, EventRecord, HandlerOutcome, RuntimeServices } from './handler';
import { validatePayload } from './payload-schema';
import { recordPublishedEvent, startEmitSpan, traceparentOf, type Span } from './tracing';

/** A handler's result waiting to complete together with the others that finished at the same time. */
interface QueuedCompletion {
  d: DeliveryRecord;
  event: EventRecord;
  outcome: HandlerOutcome;
  /** The delivery's span: the events it emits continue its trace. */
  span: Span;
  /** With the number of deliveries its emitted events opened. */
  resolve: (opened: number) => void;
  reject: (error: unknown) => void;
}

/** Deliveries the emitted events of one delivery opened, and those of them in its own run. */
interface OpenedCount {
  opened: number;
  openedInRun: number;
}

export class DeliveryCompletion {
  /**
   * One group-commit member marks a batch delivered, writes every event they emitted and settles
   * their runs, a statement for each step rather than one each per delivery. When one of them
   * fails (its apply or emit throws), each is completed alone, so the failure is that one's own
   * and the others still commit.
   */
  private readonly completions = new Coalescer<QueuedCompletion>({
    flush: (batch) => this.completeBatch(batch),
    fail: (c, error) => c.reject(error),
  });

  constructor(
    private readonly services: RuntimeServices,
    /** The lease owner: this process's dispatcher. */
    private readonly owner: string,
  ) {}

  /**
   * Completes a handler's result; resolves with the number of deliveries its emitted events
   * opened, rejects with LeaseLost when the lease was lost (nothing of it is applied), or with
   * the error its apply or emit threw.
   */
  complete(d: DeliveryRecord, event: EventRecord, outcome: HandlerOutcome, span: Span): Promise<number> {
    return new Promise((resolve, reject) => {
      this.completions.add({ d, event, outcome, span, resolve, reject });
    });
  }

  private async completeBatch(batch: QueuedCompletion[]): Promise<void> {
    // A group that reruns its members in savepoints runs completeMany again: it counts afresh.
    const done = await this.services.store.transactionInGroup((trx) => this.completeMany(trx, batch));
    await settleAfterCommit(this.services, done.unsettled);
    batch.forEach((c, i) => {
      const opened = done.opened[i];
      if (opened === undefined) c.reject(new LeaseLost(c.d.delivery_id));
      else c.resolve(opened);
    });
  }

  /** The batch's writes; `opened` is undefined for a delivery whose lease was lost (nothing of it is applied). */
  private async completeMany(trx: StoreTx, batch: QueuedCompletion[]): Promise<{ opened: (number | undefined)[]; unsettled: string[] }> {
    const { store, clock, bundle } = this.services;
    const now = clock.now();
    const held = await store.deliveries.markDeliveredMany(trx, this.owner, batch.map(({ d }) => ({ delivery_id: d.delivery_id, attempts: d.attempts })), now.toISOString());
    const events: PreparedEvent[] = [];
    const hold = async (e: NewEvent): Promise<EmittedEvent> => {
      const prepared = prepareEvent(bundle, now, e);
      events.push(prepared);
      return prepared.written;
    };
    const opened: (number | undefined)[] = [];
    // A run one of them continued (opened deliveries in it) is not quiet: the completions of those
    // deliveries settle it, so no check is needed for it here.
    const continued = new Set<string>();
    const ended = new Set<string>();
    for (const { d, event, outcome, span } of batch) {
      if (!held.has(d.delivery_id)) {
        opened.push(undefined);
        continue;
      }
      const counter: OpenedCount = { opened: 0, openedInRun: 0 };
      await outcome.apply?.(trx, this.makeEmit(d, event, counter, hold, span));
      opened.push(counter.opened);
      if (d.run_id) (counter.openedInRun > 0 ? continued : ended).add(d.run_id);
    }
    // Written before the runs are checked: a run one of them continues is not quiet.
    await store.runWrites.appendEvents(trx, events, { seqs: false });
    const quiet = [...ended].filter((runId) => !continued.has(runId));
    const settled = await settleRunsIfDone(store, trx, bundle, quiet, now);
    return { opened, unsettled: quiet.filter((runId) => !settled.has(runId)) };
  }

  /** `counter`: deliveries the emitted events opened. `write` holds the event, to write with the batch's. */
  private makeEmit(d: DeliveryRecord, event: EventRecord, counter: OpenedCount, write: (e: NewEvent) => Promise<EmittedEvent>, span: Span): Emit {
    const { bundle } = this.services;
    return async (eventName, payload, options) => {
      const depth = event.chain_depth + 1;
      const max = bundle.definition.runtime.max_chain_depth;
      if (depth > max) {
        throw new HandlerFailure(`${d.subscriber_id} tried to emit ${eventName} at chain depth ${depth}, over the bundle's max_chain_depth of ${max}`, {
          failureType: 'chain_depth_exceeded',
          reasonCode: 'chain_depth_exceeded',
          retryable: false,
          errorCode: 'CHAIN_DEPTH_EXCEEDED',
        });
      }
      const def = bundle.definition.events[eventName];
      if (!def) throw new HandlerFailure(`${d.subscriber_id} emitted unknown event ${eventName}`, { reasonCode: 'unknown_event', retryable: false });
      const issues = validatePayload(def.payload_schema, payload);
      if (issues.length > 0) {
        throw new HandlerFailure(`${d.subscriber_id} emitted ${eventName} with an invalid payload: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, {
          reasonCode: 'emit_payload_invalid',
          retryable: false,
        });
      }
      const runId = event.run_id ?? event.event_id;
      const emitSpan = startEmitSpan(span, eventName);
      const written = await write({
        event_name: eventName,
        payload,
        entity_id: options?.entity_id !== undefined ? options.entity_id : event.entity_id,
        run_id: runId,
        source: `${d.subscriber_type}:${d.subscriber_id}`,
        chain_depth: depth,
        parent_event_id: event.event_id,
        traceparent: traceparentOf(span),
      });
      if (emitSpan) {
        recordPublishedEvent(emitSpan, written.event_id, runId);
        emitSpan.end();
      }
      counter.opened += written.delivery_ids.length;
      if (runId === d.run_id) counter.openedInRun += written.delivery_ids.length;
      return written;
    };
  }
}

/**
 * With several writers (PostgreSQL), two last completions of a run can commit at once, each
 * seeing the other's delivery still open in its own transaction (READ COMMITTED), and neither
 * settles the run. Checking again after the commit closes that gap: of the two checks, the one
 * that starts after both commits sees both. A completion that opened deliveries in its run needs
 * no check: the run stays open until those complete, and the last of them checks.
 */
export async function settleAfterCommit(services: RuntimeServices, runIds: readonly string[]): Promise<void> {
  const { store, clock } = services;
  if (runIds.length === 0 || !store.capabilities.concurrentWriters) return;
  await store.transactionInGroup((trx) => settleRunsIfDone(store, trx, services.bundle, runIds, clock.now())).catch(() => undefined);
}
