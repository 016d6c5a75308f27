/**
 * Reset owner 2, quiescence: pause ingress (publishes are queued, not lost), stop claiming
 * deliveries (on every server: their claims check the reset lock), wait a bounded time for handlers
 * already running on any live server (deliveries in progress under an unexpired lease), then cancel what has not started
 * (pending deliveries, running runs, queued publishes). If handlers are still running when the
 * bound runs out, quiescence fails and nothing is cancelled: the coordinator skips cleanup, so
 * nothing is deleted under a running handler, and `restore` puts ingress and claims back.
 */
import type { ResetContext } from './reset-context';

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export interface QuiescencePreview {
  [key: string]: unknown;
  ingress: 'open' | 'paused';
  would_pause_ingress: boolean;
  active_runs: number;
  queued_publishes: number;
  pending_deliveries: number;
  in_flight_handlers: number;
  drain_timeout_ms: number;
}

export interface QuiescenceOutcome {
  [key: string]: unknown;
  ingress_before: 'open' | 'paused';
  ingress_paused: boolean;
  claims_paused: boolean;
  in_flight_at_start: number;
  drained: boolean;
  waited_ms: number;
  still_in_flight: number;
  cancelled_deliveries: number;
  cancelled_runs: number;
  cancelled_queued_publishes: number;
  cancelled_operations: number;
}

function countWhere(ctx: ResetContext, table: 'runs' | 'deliveries', statuses: string[]): Promise<number> {
  return ctx.store.runWrites.countByStatus(table, statuses);
}

export async function previewQuiescence(ctx: ResetContext, drainTimeoutMs: number): Promise<QuiescencePreview> {
  const ingress = await ctx.ingress.state();
  return {
    ingress,
    would_pause_ingress: ingress === 'open',
    active_runs: await countWhere(ctx, 'runs', ['running']),
    queued_publishes: await ctx.ingress.queueDepth(),
    pending_deliveries: await countWhere(ctx, 'deliveries', ['pending', 'in_progress']),
    in_flight_handlers: await runningHandlers(ctx),
    drain_timeout_ms: drainTimeoutMs,
  };
}

/** Handlers running here or on another live server. */
async function runningHandlers(ctx: ResetContext): Promise<number> {
  const leased = await ctx.store.deliveries.leasedCount(ctx.clock.now().toISOString());
  return Math.max(leased, ctx.dispatcher.inFlightCount);
}

export class QuiescenceError extends Error {
  constructor(
    message: string,
    readonly outcome: QuiescenceOutcome,
  ) {
    super(message);
    this.name = 'QuiescenceError';
  }
}

/** Quiesces the runtime; throws QuiescenceError (carrying what was done) when it cannot within the bound. */
export async function quiesce(ctx: ResetContext, drainTimeoutMs: number, resetId: string): Promise<QuiescenceOutcome> {
  const ingress_before = await ctx.ingress.state();
  const outcome: QuiescenceOutcome = {
    ingress_before,
    ingress_paused: false,
    claims_paused: false,
    in_flight_at_start: await runningHandlers(ctx),
    drained: false,
    waited_ms: 0,
    still_in_flight: 0,
    cancelled_deliveries: 0,
    cancelled_runs: 0,
    cancelled_queued_publishes: 0,
    cancelled_operations: 0,
  };
  try {
    return await quiesceSteps(ctx, drainTimeoutMs, resetId, outcome);
  } catch (err) {
    if (err instanceof QuiescenceError) throw err;
    // Whatever was paused before the failure is in `outcome`, so the caller can restore it.
    throw new QuiescenceError(`quiescence failed: ${(err as Error).message}`, outcome);
  }
}

async function quiesceSteps(ctx: ResetContext, drainTimeoutMs: number, resetId: string, outcome: QuiescenceOutcome): Promise<QuiescenceOutcome> {
  await ctx.ingress.pause(`runtime reset ${resetId}`, { actor: 'reset', asReset: resetId });
  outcome.ingress_paused = true;
  ctx.dispatcher.pauseClaims();
  outcome.claims_paused = true;

  const started = Date.now();
  let running = await runningHandlers(ctx);
  while (running > 0 && Date.now() - started < drainTimeoutMs) {
    await new Promise((r) => setTimeout(r, 10));
    running = await runningHandlers(ctx);
  }
  outcome.waited_ms = Date.now() - started;
  outcome.still_in_flight = running;
  if (outcome.still_in_flight > 0) {
    throw new QuiescenceError(
      `${outcome.still_in_flight} handler(s) still running after ${drainTimeoutMs} ms; nothing was cancelled or deleted`,
      outcome,
    );
  }
  outcome.drained = true;
  const cancelled = await ctx.dispatcher.cancelPending();
  outcome.cancelled_deliveries = cancelled.cancelled_deliveries;
  outcome.cancelled_runs = cancelled.cancelled_runs;
  outcome.cancelled_queued_publishes = await ctx.ingress.cancelQueued();
  outcome.cancelled_operations = (await ctx.operations?.cancelAllForReset()) ?? 0;
  return outcome;
}

/**
 * Undoes quiescence after the reset: claims resume; ingress opens after a complete cleanup (a fresh
 * runtime takes publishes) and otherwise returns to what it was before the reset.
 */
export async function restoreAfterReset(
  ctx: ResetContext,
  resetId: string,
  q: Pick<QuiescenceOutcome, 'ingress_before' | 'ingress_paused' | 'claims_paused'>,
  cleanedUp: boolean,
): Promise<'open' | 'paused'> {
  if (q.claims_paused) ctx.dispatcher.resumeClaims();
  const target = cleanedUp ? 'open' : q.ingress_before;
  if (q.ingress_paused && target === 'open') await ctx.ingress.resume({ actor: 'reset', asReset: resetId });
  return ctx.ingress.state();
}
