/** Deprecated (see the contract): kept functional as a thin wrapper over event.publish. */
import type { Handler } from '../../rpc/handler';
import { eventPublish } from '../event/publish';

export const runStart: Handler<'run.start'> = (params, ctx) => eventPublish(params, ctx);
