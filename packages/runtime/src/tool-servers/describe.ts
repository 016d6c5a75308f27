/** A simulated tool server as runtime.tool_servers describes it. */
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
