/**
 * runtime.nuke owns only the request, the response, authentication and idempotency (the
 * method executor's idempotency layer stores the final response, partial failures included). The reset itself is
 * the runtime's reset owners' work: plan and lock, quiescence, cleanup, managed-container stop.
 */
import type { Handler } from '../../rpc/handler';

export const runtimeNuke: Handler<'runtime.nuke'> = (params, ctx) =>
  ctx.runtime.reset(
    { dryRun: params.dry_run, expectedPlanHash: params.expected_plan_hash, reason: params.reason, actorTokenId: ctx.principal.tokenId },
    ctx.mutation?.answerWith((outcome) => outcome),
  );
