/** Simulated tool servers as runtime.tool_servers describes them, and their faults switch (remembered across restarts). */
import { RpcError } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import type { OnEffectCommit } from '../effect-commit';
import type { RuntimeLog } from '../runtime-log';
import type { ToolRegistry } from './registry';
import type { SimulatedMcpServer } from './simulated-mcp';

export function describeToolServer(server: SimulatedMcpServer) {
  return {
    name: server.name,
    ...(server.definition.description ? { description: server.definition.description } : {}),
    tools: server.definition.tools,
    failure_rate: server.definition.failure_rate,
    timeout_rate: server.definition.timeout_rate,
    faults: server.faultsOn ? ('on' as const) : ('off' as const),
  };
}

export type ToolServerDescription = ReturnType<typeof describeToolServer>;

/** Turns a simulated tool server's faults on or off; the switch commits before it takes effect. */
export async function setToolServerFaults(
  deps: { store: Store; tools: ToolRegistry; log: RuntimeLog; bundleName: string },
  name: string,
  faults: 'on' | 'off',
  actorTokenId: string,
  onCommit?: OnEffectCommit<{ tool_server: ToolServerDescription }>,
): Promise<{ tool_server: ToolServerDescription }> {
  const { store, tools, log } = deps;
  const server = tools.server(name);
  if (!server) throw new RpcError('NOT_FOUND', `no tool server ${name} in bundle ${deps.bundleName}`, { tool_server: name });
  const result = { tool_server: { ...describeToolServer(server), faults } };
  await store.transaction(async (trx) => {
    await store.runtimeRecords.setToolFaults(trx, name, faults);
    await onCommit?.(trx, result);
  });
  server.faultsOn = faults === 'on';
  await log.write({ level: 'info', component: name, message: `faults turned ${faults} by ${actorTokenId}` });
  return result;
}

/** Applies the faults switches a previous process left (at boot). */
export async function loadToolServerFaults(store: Store, tools: ToolRegistry): Promise<void> {
  for (const [name, faults] of await store.runtimeRecords.toolFaults()) {
    const server = tools.server(name);
    if (server) server.faultsOn = faults === 'on';
  }
}
