/**
 * Runs one claimed delivery's handler, bounded by the bundle's handler timeout, and records its
 * outcome: completion (see DeliveryCompletion) or a failed attempt (see recordFailure).
 */
import { LeaseLost, logDispatchProblem, subscriberKey, type ClaimedDelivery } from './claimed-delivery';
import { DeliveryCompletion } from './delivery-completion';
import { recordFailure } from './delivery-failure';
import { HandlerFailure, asHandlerFailure } from './handler-failure';
import type { HandlerOutcome, RuntimeServices, SubscriberHandler } from './handler';
import { recordDeliveryOutcome, type Span } from './tracing';

export interface DeliveryRunnerOptions {
  services: RuntimeServices;
  /** By subscriberKey. */
  handlers: Map<string, SubscriberHandler>;
  /** The lease owner: this process's dispatcher. */
  owner: string;
  /** Called when a completion opened deliveries, so that they run without waiting for a poll. */
  onOpened: () => void;
}

export class DeliveryRunner {
  private readonly services: RuntimeServices;
  private readonly handlers: Map<string, SubscriberHandler>;
  private readonly owner: string;
  private readonly onOpened: () => void;
  private readonly completion: DeliveryCompletion;

  constructor(options: DeliveryRunnerOptions) {
    this.services = options.services;
    this.handlers = options.handlers;
    this.owner = options.owner;
    this.onOpened = options.onOpened;
    this.completion = new DeliveryCompletion(options.services, options.owner);
  }

  /** `handlerFinished` is called once the handler has answered, before its outcome is recorded. */
  async runToOutcome(claimed: ClaimedDelivery, span: Span, handlerFinished: () => void): Promise<void> {
    const { bundle } = this.services;
    const { event, ...d } = claimed;
    const handler = this.handlers.get(subscriberKey(d.subscriber_type, d.subscriber_id));
    let failure: HandlerFailure | undefined;
    let outcome: HandlerOutcome | undefined;
    if (!handler) {
      failure = new HandlerFailure(`no ${d.subscriber_type} "${d.subscriber_id}" in bundle ${bundle.definition.name}@${bundle.definition.version}`, {
        failureType: 'unknown_subscriber',
        reasonCode: 'unknown_subscriber',
        retryable: false,
      });
    } else if (d.attempts > d.max_attempts) {
      failure = new HandlerFailure(`the last attempt did not finish within its ${bundle.definition.runtime.lease_ms} ms lease (the process handling it stopped)`, {
        failureType: 'timeout',
        reasonCode: 'lease_expired',
        retryable: false,
      });
    } else {
      const timeoutMs = bundle.definition.runtime.handler_timeout_ms;
      // Made when the handler first reads its signal: most never do, and an AbortController per
      // delivery is a measurable share of a server's CPU while draining no-op deliveries.
      let controller: AbortController | undefined;
      let timeout: HandlerFailure | undefined;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timeout = new HandlerFailure(`handler ${d.subscriber_id} did not finish within ${timeoutMs} ms`, { failureType: 'timeout', reasonCode: 'handler_timeout' });
          controller?.abort(timeout);
          reject(timeout);
        }, timeoutMs);
      });
      const context = {
        services: this.services,
        delivery: d,
        event,
        attempt: d.attempts,
        get signal(): AbortSignal {
          if (!controller) {
            controller = new AbortController();
            if (timeout) controller.abort(timeout);
          }
          return controller.signal;
        },
      };
      const started = performance.now();
      try {
        outcome = await Promise.race([handler.handle(context), timedOut]);
      } catch (err) {
        failure = asHandlerFailure(err);
      } finally {
        clearTimeout(timer);
        this.services.observer.onHandlerDuration(d.subscriber_id, (performance.now() - started) / 1000);
      }
    }

    handlerFinished();
    if (!failure) {
      try {
        const opened = await this.completion.complete(d, event, outcome ?? {}, span);
        this.services.observer.onDeliveryOutcome(d.subscriber_id, 'delivered');
        recordDeliveryOutcome(span, 'delivered');
        if (opened > 0) this.onOpened();
        return;
      } catch (err) {
        if (err instanceof LeaseLost) {
          recordDeliveryOutcome(span, 'lease_lost', err.message);
          await logDispatchProblem(this.services, 'warn', 'LEASE_LOST', err.message);
          return;
        }
        failure = asHandlerFailure(err);
      }
    }
    await recordFailure(this.services, this.owner, d, event, failure, span);
  }
}
