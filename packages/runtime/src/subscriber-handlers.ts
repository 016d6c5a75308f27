/** The handler of every subscriber in a bundle: its flow nodes by kind, and its agents. */
import { AgentHandler } from './agents/agent-handler';
import type { LoadedBundle } from './bundle/load';
import { subscriberKey } from './claimed-delivery';
import type { SubscriberHandler } from './handler';
import { ApprovalGateHandler } from './nodes/approval-gate';
import { EntityUpdateHandler } from './nodes/entity-update';
import { ToolCallHandler } from './nodes/tool-call';
import { TransformHandler } from './nodes/transform';

export function buildHandlers(bundle: LoadedBundle): Map<string, SubscriberHandler> {
  const handlers = new Map<string, SubscriberHandler>();
  for (const [id, node] of Object.entries(bundle.definition.nodes)) {
    const handler =
      node.kind === 'transform'
        ? new TransformHandler(node)
        : node.kind === 'entity_update'
          ? new EntityUpdateHandler(id, node)
          : node.kind === 'approval_gate'
            ? new ApprovalGateHandler(id, node)
            : new ToolCallHandler(id, node);
    handlers.set(subscriberKey('node', id), handler);
  }
  for (const agent of bundle.definition.agents) handlers.set(subscriberKey('agent', agent.agent_id), new AgentHandler(agent));
  return handlers;
}
