import type { NodeDefinition } from '../bundle/schema';
import { applyEntityChange, toEntityRecord } from '../entities';
import { HandlerFailure } from '../handler-failure';
import type { DeliveryContext, HandlerOutcome, SubscriberHandler } from '../handler';
import { renderObject, renderTemplate } from '../templates';

type EntityUpdateNode = Extract<NodeDefinition, { kind: 'entity_update' }>;

/** Creates or updates the event's entity: transition, fields, accumulated values; may emit. */
export class EntityUpdateHandler implements SubscriberHandler {
  constructor(
    private readonly nodeId: string,
    private readonly node: EntityUpdateNode,
  ) {}

  async handle(ctx: DeliveryContext): Promise<HandlerOutcome> {
    const { event, services } = ctx;
    const roots = { payload: event.payload };
    const fromTemplate = this.node.entity_id ? renderTemplate(this.node.entity_id, roots) : undefined;
    const entityId = event.entity_id ?? (typeof fromTemplate === 'string' || typeof fromTemplate === 'number' ? `${this.node.entity_type}-${fromTemplate}` : undefined);
    if (!entityId) {
      throw new HandlerFailure(`${this.nodeId}: event ${event.event_id} carries no entity_id and the node has no entity_id template`, {
        reasonCode: 'no_entity',
        retryable: false,
        component: `node.${this.nodeId}`,
      });
    }
    const type = services.bundle.definition.entity_types[this.node.entity_type]!;
    const fields = renderObject(this.node.set_fields, roots);
    const accumulate: Record<string, { op: 'count' | 'sum' | 'max' | 'last'; value?: unknown }> = {};
    for (const [k, acc] of Object.entries(this.node.accumulate)) accumulate[k] = { op: acc.op, value: acc.value ? renderTemplate(acc.value, roots) : undefined };
    const name = this.node.entity_name ? renderTemplate(this.node.entity_name, roots) : undefined;
    const runId = event.run_id ?? event.event_id;
    return {
      apply: async (trx, emit) => {
        const now = services.clock.now();
        const { row, changed, from } = await applyEntityChange(
          services.store,
          trx,
          type,
          {
            entity_id: entityId,
            entity_type: this.node.entity_type,
            event_name: event.event_name,
            run_id: runId,
            flow_instance: `${services.bundle.definition.name}/${this.node.entity_type}/${runId}`,
            fields,
            accumulate,
            name: typeof name === 'string' && name !== '' ? name : undefined,
          },
          now,
        );
        if (changed) {
          await services.log.write(
            {
              level: 'info',
              component: 'entities',
              message: from === undefined ? `${row.entity_type} ${row.entity_id} created in state ${row.current_state}` : `${row.entity_type} ${row.entity_id} ${from === row.current_state ? `updated in ${row.current_state}` : `moved ${from} → ${row.current_state}`} (revision ${row.revision})`,
              event_id: event.event_id,
              run_id: event.run_id,
              delivery_id: ctx.delivery.delivery_id,
              entity_id: row.entity_id,
            },
            trx,
          );
        }
        if (from === undefined) services.onEntityCreated?.(row.entity_id, row.entity_type);
        if (this.node.emit) {
          const payload = this.node.emit_map ? renderObject(this.node.emit_map, { payload: event.payload, entity: { ...toEntityRecord(row), fields: JSON.parse(row.fields), accumulated: JSON.parse(row.accumulated) } }) : { ...event.payload };
          await emit(this.node.emit, payload, { entity_id: row.entity_id });
        }
      },
    };
  }
}
