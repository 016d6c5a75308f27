import type { NodeDefinition } from '../bundle/schema';
import { evaluateCondition } from '../conditions';
import type { DeliveryContext, HandlerOutcome, SubscriberHandler } from '../handler';
import { openMailboxItem } from '../mailbox';
import { renderObject } from '../templates';

type ApprovalGateNode = Extract<NodeDefinition, { kind: 'approval_gate' }>;

/** Opens a pending mailbox item for an operator; the approval route continues the flow. */
export class ApprovalGateHandler implements SubscriberHandler {
  constructor(
    private readonly nodeId: string,
    private readonly node: ApprovalGateNode,
  ) {}

  async handle(ctx: DeliveryContext): Promise<HandlerOutcome> {
    const { event, services } = ctx;
    const payload = Object.keys(this.node.payload_map).length === 0 ? { ...event.payload } : renderObject(this.node.payload_map, { payload: event.payload });
    const escalate = this.node.escalate_when ? evaluateCondition(this.node.escalate_when, event.payload).passed : false;
    return {
      apply: async (trx) => {
        const mailboxId = await openMailboxItem(services.store, trx, services.clock.now(), {
          type: this.node.mailbox_type,
          priority: escalate && (this.node.priority === 'low' || this.node.priority === 'normal') ? 'high' : this.node.priority,
          source_flow: this.node.source_flow,
          payload,
          source_entity_id: event.entity_id,
          source_event_id: event.event_id,
          run_id: event.run_id,
        });
        await services.log.write(
          {
            level: 'info',
            component: `node.${this.nodeId}`,
            message: `opened ${this.node.mailbox_type} mailbox item ${mailboxId}${escalate ? ' (escalated to high priority)' : ''}`,
            event_id: event.event_id,
            run_id: event.run_id,
            delivery_id: ctx.delivery.delivery_id,
            entity_id: event.entity_id,
          },
          trx,
        );
      },
    };
  }
}
