/**
 * The one publish path, behind event.publish and its deprecated wrapper run.start: the runtime
 * validates the event name against the catalog (UNKNOWN_EVENT), the payload against its schema
 * (INVALID_PARAMS with issues) and bundle_ref against the boot bundle (BUNDLE_MISMATCH), refuses
 * during a reset (RESET_IN_PROGRESS), and queues the publish while ingress is paused.
 */
import type { Result } from '@switchboard/contract';
import type { PublishResult } from '@switchboard/runtime';
import type { Handler } from '../../rpc/handler';

export const eventPublish: Handler<'event.publish'> = async (params, ctx) => {
  const toResult = (published: PublishResult): Result<'event.publish'> => ({ run_id: published.run_id, status: published.status, event_id: published.event_id });
  const published = await ctx.runtime.publish(
    { event_name: params.event_name, payload: params.payload, entity_id: params.entity_id, bundle_ref: params.bundle_ref, source: 'api', startedByUserId: ctx.principal.userId },
    ctx.mutation?.answerWith(toResult),
  );
  return toResult(published);
};
