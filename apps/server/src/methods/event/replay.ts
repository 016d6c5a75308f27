import type { Handler } from '../../rpc/handler';

export const eventReplay: Handler<'event.replay'> = (params, ctx) =>
  ctx.runtime.recover(
    {
      kind: 'replay',
      selection: { filter: params.filter, since: params.since, until: params.until, subscriber_ids: params.subscriber_ids, event_ids: params.event_ids },
      dryRun: params.dry_run,
      expectedPlanHash: params.expected_plan_hash,
      ratePerSecond: params.rate_per_second,
      actorTokenId: ctx.principal.tokenId,
    },
    ctx.keyedCall?.answerWith((outcome) => outcome),
  );
