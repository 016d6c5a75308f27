import type { Handler } from '../../rpc/handler';

/** The boot bundle's event catalog, sorted by name. */
export const runtimeCatalog: Handler<'runtime.catalog'> = async (_params, ctx) => ({
  events: Object.entries(ctx.runtime.bundle.definition.events)
    .map(([name, def]) => ({
      name,
      ...(def.description ? { description: def.description } : {}),
      subscribers: def.subscribers.map((s) => ({ type: s.type, id: s.id, ...(s.side_effects ? { side_effects: true } : {}) })),
      ...(def.indexed_payload_fields.length > 0 ? { indexed_payload_fields: def.indexed_payload_fields } : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name)),
});
