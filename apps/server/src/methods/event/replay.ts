/** event.replay: estimate-then-apply on events, the same call as event.redrive on dead letters. */
import type { Handler } from '../../rpc/handler';

export const eventReplay: Handler<'event.replay'> = (params, ctx) => {
  const { dry_run, expected_plan_hash, rate_per_second, stop_after_failures, idempotency_key: _key, ...selection } = params;
  return ctx.runtime.recover(
    { kind: 'replay', selection, dryRun: dry_run, expectedPlanHash: expected_plan_hash, ratePerSecond: rate_per_second, stopAfterFailures: stop_after_failures, actorTokenId: ctx.principal.tokenId },
    ctx.mutation?.answerWith((outcome) => outcome),
  );
};
