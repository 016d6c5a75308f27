/**
 * The decision sheet of a mailbox item: what approving it would emit (from the bundle) and the
 * entity it is about, with its gates (from the store), as they stand in the deciding transaction.
 */
import type { DecisionSheet } from '@switchboard/contract';
import type { MailboxItemRow, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import { evaluateGates, toEntityRecord } from './entities';

export interface FailingGate {
  gate: string;
  summary?: string;
  detail?: string;
}

/** The entity's gates that fail on a decision sheet, in the bundle's order. */
export function failingGates(sheet: DecisionSheet): { failing: FailingGate[]; total: number } {
  const gates = sheet.entity_context.entity?.gates ?? {};
  const failing = Object.entries(gates)
    .filter(([, g]) => !g.passed)
    .map(([gate, g]) => ({ gate, ...(g.summary ? { summary: g.summary } : {}), ...(g.detail ? { detail: g.detail } : {}) }));
  return { failing, total: Object.keys(gates).length };
}

/** Read in `tx` when given: the sheet as it stands in the deciding transaction. */
export async function decisionSheetOf(store: Store, bundle: LoadedBundle, item: MailboxItemRow, tx?: StoreTx): Promise<DecisionSheet> {
  const route = bundle.definition.approval_routes[item.type];
  const downstream_preview: DecisionSheet['downstream_preview'] = route
    ? { available: true, subscriber_source: 'event_catalog', event_name: route.emit, subscribers: (bundle.definition.events[route.emit]?.subscribers ?? []).map((s) => s.id) }
    : { available: false, subscriber_source: 'event_catalog', subscribers: [], reason: 'no_approval_route' };
  let entity_context: DecisionSheet['entity_context'];
  if (!item.source_entity_id) entity_context = { available: false, reason: 'no_source_entity' };
  else {
    const row = await store.entities.get(item.source_entity_id, tx);
    if (!row) entity_context = { available: false, reason: 'entity_not_found' };
    else {
      entity_context = {
        available: true,
        entity: {
          accumulated: JSON.parse(row.accumulated) as Record<string, unknown>,
          fields: JSON.parse(row.fields) as Record<string, unknown>,
          gates: evaluateGates(bundle.definition.entity_types[row.entity_type], row),
          entity: toEntityRecord(row),
        },
      };
    }
  }
  return { downstream_preview, entity_context };
}
