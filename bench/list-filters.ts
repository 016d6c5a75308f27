/**
 * The event.list filters the list benchmarks time, one at a time. Each names values that the
 * filled data holds (bench/event-list.bench.ts writes them), so that every filter
 * finds rows.
 */
import type { EventFilter } from '@switchboard/store';

export const LIST_FILTERS: [string, EventFilter][] = [
  ['no filter', {}],
  ['event_name', { event_name: 'refund.paid' }],
  ['entity_id (hot)', { entity_id: 'ticket-HOT-1' }],
  ['subscriber_id', { subscriber_id: 'pay-refund' }],
  ['has_dead_letter', { has_dead_letter: true }],
];
