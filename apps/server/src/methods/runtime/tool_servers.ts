import type { Handler } from '../../rpc/handler';

export const runtimeToolServers: Handler<'runtime.tool_servers'> = async (_params, ctx) => ({ tool_servers: ctx.runtime.toolServers() });
