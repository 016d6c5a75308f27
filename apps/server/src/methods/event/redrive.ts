import type { Handler } from '../../rpc/handler';

export const eventRedrive: Handler<'event.redrive'> = (params, ctx) =>
  ctx.runtime.recover(
    {
      kind: 'redrive',
      selection: { filter: params.filter, since: params.since, until: params.until, subscriber_ids: params.subscriber_ids, dead_letter_ids: params.dead_letter_ids },
      dryRun: params.dry_run,
      expectedPlanHash: params.expected_plan_hash,
      ratePerSecond: params.rate_per_second,
      actorTokenId: ctx.principal.tokenId,
    },
    ctx.keyedCall?.answerWith((outcome) => outcome),
  );
