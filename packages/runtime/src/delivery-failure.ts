/**
 * A failed attempt's outcome: a retry after a backoff while attempts remain and the failure is
 * retryable, otherwise a dead letter (and the run settles failed once nothing of it is open).
 */
import { deadLetterCauseKey } from '@switchboard/store';
import { LeaseLost, backoffFor, leaseOf, logDispatchProblem } from './claimed-delivery';
import { settleAfterCommit } from './delivery-completion';
import { settleRunIfDone } from './event-store';
import type { HandlerFailure } from './handler-failure';
import type { DeliveryRecord, EventRecord, RuntimeServices } from './handler';
import { newId } from './ids';
import { recordDeliveryOutcome, type Span } from './tracing';

/** Records `failure` of the delivery `owner` holds; a lost lease is logged, not thrown. */
export async function recordFailure(services: RuntimeServices, owner: string, d: DeliveryRecord, event: EventRecord, failure: HandlerFailure, span: Span): Promise<void> {
  const { store, clock, bundle, log } = services;
  const final = !failure.retryable || d.attempts >= d.max_attempts;
  const ids = { event_id: event.event_id, run_id: d.run_id, delivery_id: d.delivery_id, entity_id: event.entity_id };
  const lease = leaseOf(d, owner);
  let settleLater = false;
  if (!failure.logged) {
    await log.write({
      level: final ? 'error' : 'warn',
      component: failure.component ?? `${d.subscriber_type}.${d.subscriber_id}`,
      error_code: failure.errorCode ?? failure.reasonCode.toUpperCase(),
      message: `${d.subscriber_id} failed on ${event.event_name} (attempt ${d.attempts}): ${failure.message}`,
      ...ids,
    });
  }
  try {
    await store.transactionInGroup(async (trx) => {
      const now = clock.now();
      const nowIso = now.toISOString();
      await failure.record?.(trx, { final, attempt: d.attempts });
      if (!final) {
        const delay = backoffFor(bundle.definition.runtime.backoff_ms, d.attempts);
        const retried = await store.deliveries.scheduleRetry(
          trx,
          lease,
          { next_attempt_at: new Date(now.getTime() + delay).toISOString(), last_error: failure.message.slice(0, 2000), reason_code: failure.reasonCode },
          nowIso,
        );
        if (!retried) throw new LeaseLost(d.delivery_id);
        recordDeliveryOutcome(span, 'retry', failure.message);
        await log.write(
          {
            level: 'warn',
            component: 'dispatcher',
            error_code: 'DELIVERY_RETRY',
            message: `retrying ${d.subscriber_id} on ${event.event_name} in ${delay} ms (attempt ${d.attempts} of ${d.max_attempts} failed: ${failure.reasonCode})`,
            ...ids,
          },
          trx,
        );
        return;
      }
      const failed = await store.deliveries.markFailed(trx, lease, { last_error: failure.message.slice(0, 2000), reason_code: failure.reasonCode }, nowIso);
      if (!failed) throw new LeaseLost(d.delivery_id);
      recordDeliveryOutcome(span, 'dead_letter', failure.message);
      const dead_letter_id = newId('dl', now);
      await store.deliveries.insertDeadLetter(trx, {
        dead_letter_id,
        event_id: event.event_id,
        event_seq: event.seq,
        event_created_at: event.created_at,
        delivery_id: d.delivery_id,
        run_id: d.run_id,
        subscriber_id: d.subscriber_id,
        chain_depth: event.chain_depth,
        created_at: nowIso,
        failure_type: failure.failureType,
        retry_count: Math.max(0, Math.min(d.attempts, d.max_attempts) - 1),
        error_message: failure.message.slice(0, 2000),
        handler_node: d.subscriber_id,
        reason_code: failure.reasonCode,
      });
      await log.write(
        {
          level: 'error',
          component: 'dispatcher',
          error_code: 'DEAD_LETTER',
          message: `dead-lettered ${d.subscriber_id} on ${event.event_name} after ${d.attempts} attempt(s): ${failure.failureType}/${failure.reasonCode}: ${failure.message}`,
          dead_letter_id,
          // One incident per (subscriber, reason): see docs/api-notes.md, "Incident grouping key".
          cause_key: deadLetterCauseKey(d.subscriber_id, failure.reasonCode),
          ...ids,
        },
        trx,
      );
      if (!(await settleRunIfDone(store, trx, bundle, d.run_id, now))) settleLater = true;
    });
    services.observer.onDeliveryOutcome(d.subscriber_id, final ? 'dead_letter' : 'retry');
    if (settleLater && d.run_id) await settleAfterCommit(services, [d.run_id]);
  } catch (err) {
    if (err instanceof LeaseLost) {
      recordDeliveryOutcome(span, 'lease_lost', err.message);
      await logDispatchProblem(services, 'warn', 'LEASE_LOST', err.message);
    } else throw err;
  }
}
