import type { Handler } from '../../rpc/handler';
import { publishEvent } from './publish-event';

export const eventPublish: Handler<'event.publish'> = (params, ctx) => publishEvent(params, ctx);
