import type { StoreTx } from '@switchboard/store';

export type FailureType = 'handler_error' | 'timeout' | 'chain_depth_exceeded' | 'unknown_subscriber';

export interface FailureRecordContext {
  /** True when this failure ends the delivery (no retry follows). */
  final: boolean;
  attempt: number;
}

/**
 * A delivery attempt that did not succeed. Carries what the dispatcher needs to decide between
 * retry and dead letter, and optionally records to commit with the failure (an agent's failed
 * turn is kept, for instance).
 */
export class HandlerFailure extends Error {
  readonly failureType: FailureType;
  readonly reasonCode: string;
  readonly retryable: boolean;
  readonly component?: string;
  readonly errorCode?: string;
  readonly record?: (trx: StoreTx, ctx: FailureRecordContext) => Promise<void>;
  /** Set when the failure was already logged by the component that saw it. */
  readonly logged: boolean;

  constructor(
    message: string,
    options: {
      failureType?: FailureType;
      reasonCode: string;
      retryable?: boolean;
      component?: string;
      errorCode?: string;
      record?: HandlerFailure['record'];
      logged?: boolean;
    },
  ) {
    super(message);
    this.name = 'HandlerFailure';
    this.failureType = options.failureType ?? 'handler_error';
    this.reasonCode = options.reasonCode;
    this.retryable = options.retryable ?? true;
    this.component = options.component;
    this.errorCode = options.errorCode;
    this.record = options.record;
    this.logged = options.logged ?? false;
  }
}

export function asHandlerFailure(err: unknown): HandlerFailure {
  if (err instanceof HandlerFailure) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new HandlerFailure(message, { reasonCode: 'handler_error' });
}
