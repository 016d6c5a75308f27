import type { NodeDefinition } from '../bundle/schema';
import type { DeliveryContext, HandlerOutcome, SubscriberHandler } from '../handler';
import { renderObject } from '../templates';

type TransformNode = Extract<NodeDefinition, { kind: 'transform' }>;

/** Reshapes the payload and emits the result as a new event in the same run. */
export class TransformHandler implements SubscriberHandler {
  constructor(private readonly node: TransformNode) {}

  async handle(ctx: DeliveryContext): Promise<HandlerOutcome> {
    const payload = Object.keys(this.node.map).length === 0 ? { ...ctx.event.payload } : renderObject(this.node.map, { payload: ctx.event.payload });
    return { apply: async (_trx, emit) => void (await emit(this.node.emit, payload)) };
  }
}
