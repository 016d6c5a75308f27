/** run.tree: every record of a run, with what links them, against event.list, conversation.get and mailbox.get. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

describe('run.tree', () => {
  let server: TestServer;
  withSeededServer(12, (s) => {
    server = s as TestServer;
  });

  it('returns the run\'s events, deliveries, dead letters, turns and mailbox items, linked by parent and source', async () => {
    const { items } = await ok(server, 'mailbox.list', { filter: { status: 'approved' }, limit: 1 });
    const item = await ok(server, 'mailbox.get', { mailbox_id: items[0]!.mailbox_id });
    const runId = (await ok(server, 'event.list', { filter: { event_id: item.item.source_event_id! } })).events[0]!.run_id!;
    const tree = await ok(server, 'run.tree', { run_id: runId });
    const listed = (await walk(server, 'event.list', { filter: { run_id: runId }, limit: 100 })).items;

    expect(tree.run.run_id).toBe(runId);
    expect(tree.truncated).toBe(false);
    expect(tree.events.map((e) => e.event_id).sort()).toEqual(listed.map((e) => e.event_id).sort());
    expect(tree.deliveries.map((d) => d.delivery_id).sort()).toEqual(listed.flatMap((e) => e.deliveries.map((d) => d.delivery_id)).sort());
    expect(tree.dead_letters.map((l) => l.dead_letter_id).sort()).toEqual(listed.flatMap((e) => e.dead_letters.map((l) => l.dead_letter_id)).sort());
    for (let i = 1; i < tree.events.length; i++) expect(tree.events[i - 1]!.created_at <= tree.events[i]!.created_at).toBe(true);

    // Causality: one root; every other event names a parent in the run and came from a delivery of
    // that parent to its source subscriber, or from a mailbox approval.
    const ids = new Set(tree.events.map((e) => e.event_id));
    expect(tree.events.filter((e) => !e.parent_event_id)).toHaveLength(1);
    for (const e of tree.events.filter((x) => x.parent_event_id)) {
      expect(ids.has(e.parent_event_id!)).toBe(true);
      if (e.source.startsWith('mailbox:')) {
        expect(tree.mailbox_items.some((m) => `mailbox:${m.mailbox_id}` === e.source && m.emitted_event_id === e.event_id)).toBe(true);
      } else {
        expect(tree.deliveries.some((d) => d.event_id === e.parent_event_id && `${d.subscriber_type}:${d.subscriber_id}` === e.source)).toBe(true);
      }
    }
    // The approved item is in it, with the event it emitted.
    expect(tree.mailbox_items.find((m) => m.mailbox_id === item.item.mailbox_id)).toMatchObject({ status: 'approved', emitted_event_id: item.emitted_event_id });
    // Agent turns attach to their trigger event and an agent delivery of it.
    expect(tree.turns.length).toBeGreaterThan(0);
    for (const t of tree.turns) {
      expect(ids.has(t.trigger_event_id)).toBe(true);
      expect(tree.deliveries.some((d) => d.event_id === t.trigger_event_id && d.subscriber_type === 'agent' && d.subscriber_id === t.agent_id)).toBe(true);
      const session = await ok(server, 'conversation.get', { session_id: t.session_id });
      expect(session.turns.map((x) => x.turn_id)).toContain(t.turn_id);
    }
  });

  it('is NOT_FOUND for an unknown run', async () => {
    await fails(server, 'run.tree', { run_id: 'run_missing' }, 'NOT_FOUND');
  });
});
