/** Deprecated (see the contract): kept functional as a thin wrapper over event.publish. */
import type { Handler } from '../../rpc/handler';
import { publishEvent } from '../event/publish-event';

export const runStart: Handler<'run.start'> = (params, ctx) => publishEvent(params, ctx);
