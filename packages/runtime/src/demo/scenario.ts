/**
 * The demo scenario: runs realistic support traffic through the real runtime so a fresh install
 * has something true to show. Tickets are published, agents triage them (with a model failure, a
 * transcript that does not parse and a fax that never does), refund approvals open in the
 * mailbox, the scenario plays a reviewer who approves the small refunds and rejects one, the
 * flaky payments server produces retries and dead letters, and some items stay pending for a
 * human operator.
 */
import type { ActivityTotals } from '@switchboard/store';
import type { Decider } from '../mailbox';
import type { Runtime } from '../runtime';
import { demoTicket } from './tickets';

export const DEMO_ACTOR = 'demo';
/** The scenario decides as a person of its own, an admin, so the bundle's decider rules apply to it too. */
const DEMO_DECIDER: Decider = { userId: DEMO_ACTOR, userName: 'Demo scenario', role: 'admin' };

export interface DemoScenarioOptions {
  tickets?: number;
  /** Ticket id prefix; change it to run the scenario again on the same store. */
  prefix?: string;
  /** Refund approvals within the limit left pending for a person (the oldest tickets'); at least one is approved. */
  leavePending?: number;
  timeoutMs?: number;
}

export type DemoScenarioResult = { published: number; approved: number; rejected: number } & ActivityTotals;

const REFUND_LIMIT = 500;

export async function runDemoScenario(runtime: Runtime, options: DemoScenarioOptions = {}): Promise<DemoScenarioResult> {
  const count = options.tickets ?? 30;
  const timeoutMs = options.timeoutMs ?? 60_000;
  for (let i = 0; i < count; i++) {
    const t = demoTicket(i, options.prefix);
    await runtime.publish({ event_name: 'ticket.created', payload: t.payload, entity_id: t.entity_id, source: DEMO_ACTOR });
  }
  await runtime.waitForIdle(timeoutMs);

  // By ticket, newest first, not by arrival: arrival order follows dispatch timing, and which
  // items are decided (so which refunds meet the flaky payments server, and which of them end as
  // dead letters) must not change with it.
  const pending = await runtime.store.mailboxDecisions.pendingOfType('refund_approval');
  const amountOf = (item: { payload: string }) => Number((JSON.parse(item.payload) as { amount?: unknown }).amount);
  const withinLimit = pending.filter((item) => amountOf(item) <= REFUND_LIMIT);
  // The oldest refunds within the limit stay pending for a person, but at least one is approved so
  // that every state shows; the newest one above the limit is rejected, the rest above it wait.
  const keep = options.leavePending ?? 3;
  const toApprove = withinLimit.slice(0, Math.max(1, withinLimit.length - keep));
  const toReject = pending.find((item) => amountOf(item) > REFUND_LIMIT);
  let approved = 0;
  let rejected = 0;
  for (const item of toApprove) {
    const sheet = await runtime.decisionSheet(item.mailbox_id);
    await runtime.approveMailboxItem({
      mailbox_id: item.mailbox_id,
      reason: `Within the ${REFUND_LIMIT} EUR agent refund limit`,
      expected_entity_revision: sheet.entity_context.entity?.entity.revision,
      actorTokenId: DEMO_ACTOR,
      decider: DEMO_DECIDER,
    });
    approved++;
  }
  if (toReject) {
    await runtime.rejectMailboxItem({
      mailbox_id: toReject.mailbox_id,
      reason: 'Above the refund limit; offered store credit instead',
      reason_code: 'outside_policy',
      actorTokenId: DEMO_ACTOR,
      decider: DEMO_DECIDER,
    });
    rejected++;
  }
  await runtime.waitForIdle(timeoutMs);

  return { published: count, approved, rejected, ...(await runtime.store.runtimeRecords.activityTotals()) };
}
