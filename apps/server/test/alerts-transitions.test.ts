/**
 * Transitions to notices, against a real server on the alerts test bundle: a burst of 500
 * failures of one subscriber makes one incident.opened notice per incident (one webhook-id at the
 * receiver), resolving and failing again makes one incident.regressed notice with another id;
 * silences suppress; a mailbox item past its SLA notifies, then escalates, and one decided before
 * the escalation gets none. Runs on the test engine.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Result } from '@switchboard/contract';
import { databaseOf } from '@switchboard/store/testing';
import { ok, waitForQuiet } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from './webhook-receiver';

const ALERTS_BUNDLE = fileURLToPath(new URL('./bundles/alerts.yaml', import.meta.url));

type Notice = Result<'alert.notices'>['items'][number];
interface Sent {
  type: string;
  data: { subject_id?: string; incident_id?: string; mailbox_id?: string };
}

let server: TestServer;
let receiver: WebhookReceiver;
let secret = '';
let destinationId = '';

/** Verified webhook requests (a bad signature throws). */
function verified(requests: readonly ReceivedRequest[]): (Sent & { id: string })[] {
  return requests.map((r) => ({ id: String(r.headers['webhook-id']), ...(new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Sent) }));
}

async function notices(params: Parameters<typeof ok<'alert.notices'>>[2] = {}): Promise<Notice[]> {
  return (await ok(server, 'alert.notices', { limit: 500, ...params })).items;
}

async function failJobs(n: number): Promise<void> {
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => ok(server, 'event.publish', { event_name: 'job.run', payload: { n: i + j } })));
  }
  await waitForQuiet(server, 60_000);
}

type Incident = Result<'runtime.incidents'>['incidents'][number];

/** The dead-letter incidents (one per subscriber and reason: a slow attempt may time out instead of failing). */
async function deadLetterIncidents(): Promise<Incident[]> {
  const { incidents } = await ok(server, 'runtime.incidents', { component: 'dispatcher', limit: 10 });
  return incidents.filter((i) => i.error_code === 'DEAD_LETTER').sort((a, b) => b.count - a.count);
}

/** Fails jobs until `incident` has occurred again since it was resolved (at most 10 rounds). */
async function failUntilRegressed(incident: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    await failJobs(5);
    if ((await deadLetterIncidents()).find((i) => i.incident_id === incident)?.regressed) return;
  }
  throw new Error(`${incident} did not occur again`);
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: ALERTS_BUNDLE, SWITCHBOARD_ALERT_BACKOFF_MS: '50', SWITCHBOARD_ALERT_EVALUATE_MS: '200' } });
  const created = await ok(server, 'alert.destination_create', { name: 'on-call', kind: 'webhook', url: receiver.url });
  secret = created.secret!;
  destinationId = created.destination.id;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe('incident transitions', () => {
  it('500 failures of one subscriber: one incident.opened notice per incident, one webhook-id each, signed', async () => {
    await ok(server, 'alert.rule_create', { name: 'opened', when: { trigger: 'incident.opened' }, destination_ids: [destinationId] });
    await failJobs(500);
    const deadLetters = await deadLetterIncidents();
    expect(deadLetters.reduce((sum, i) => sum + i.count, 0)).toBe(500);
    await expect.poll(async () => (await notices({ status: 'pending' })).length === 0, { timeout: 20_000, message: 'notices to be delivered' }).toBe(true);
    const opened = (await notices()).filter((n) => n.transition === 'incident.opened');
    // One notice per incident the burst opened (each dead-letter cause, and each other group's first record).
    const perIncident = new Map<string, number>();
    for (const n of opened) perIncident.set(n.subject_id!, (perIncident.get(n.subject_id!) ?? 0) + 1);
    for (const i of deadLetters) expect({ incident: i.incident_id, notices: perIncident.get(i.incident_id) }).toEqual({ incident: i.incident_id, notices: 1 });
    expect([...perIncident.values()].every((c) => c === 1)).toBe(true);
    expect(opened.find((n) => n.subject_id === deadLetters[0]!.incident_id)!.link).toBe(`/incidents?selected=${deadLetters[0]!.incident_id}`);

    const sent = verified(receiver.received).filter((s) => s.type === 'incident.opened');
    for (const i of deadLetters) expect(new Set(sent.filter((s) => s.data.subject_id === i.incident_id).map((s) => s.id)).size).toBe(1);
    expect(new Set(sent.map((s) => s.id))).toEqual(new Set(opened.map((n) => n.id)));
    expect(sent.find((s) => s.data.subject_id === deadLetters[0]!.incident_id)!.data).toMatchObject({ incident_id: deadLetters[0]!.incident_id });
  }, 180_000);

  it('resolve, then fail again: one incident.regressed notice with a new id, and no second incident.opened', async () => {
    await ok(server, 'alert.rule_create', { name: 'regressed', when: { trigger: 'incident.regressed' }, destination_ids: [destinationId] });
    const incident = (await deadLetterIncidents())[0]!.incident_id;
    await ok(server, 'runtime.incident_update', { incident_id: incident, state: 'resolved', note: 'fixed' });
    const before = receiver.received.length;
    await failUntilRegressed(incident);
    await failJobs(10);
    await expect.poll(async () => (await notices({ status: 'pending' })).length === 0, { timeout: 20_000, message: 'notices to be delivered' }).toBe(true);
    const sent = verified(receiver.received.slice(before));
    const regressed = sent.filter((s) => s.type === 'incident.regressed' && s.data.subject_id === incident);
    expect(regressed).toHaveLength(1);
    const openedBefore = new Set(verified(receiver.received.slice(0, before)).filter((s) => s.type === 'incident.opened').map((s) => s.data.subject_id));
    expect(sent.filter((s) => s.type === 'incident.opened' && openedBefore.has(s.data.subject_id))).toEqual([]);
    const openedId = verified(receiver.received).find((s) => s.type === 'incident.opened' && s.data.subject_id === incident)!.id;
    expect(regressed[0]!.id).not.toBe(openedId);
  }, 120_000);

  it('a silenced incident makes no notice; ending the silence lets the next transition notify', async () => {
    const incident = (await deadLetterIncidents())[0]!.incident_id;
    const regressions = async () => (await notices({ subject_id: incident })).filter((n) => n.transition === 'incident.regressed').length;
    const { silence } = await ok(server, 'alert.silence_create', { incident_id: incident, until: new Date(Date.now() + 3_600_000).toISOString(), reason: 'known outage' });
    await ok(server, 'runtime.incident_update', { incident_id: incident, state: 'resolved', note: 'again' });
    await failUntilRegressed(incident);
    expect(await regressions()).toBe(1);
    await ok(server, 'alert.silence_end', { silence_id: silence.id });
    await ok(server, 'runtime.incident_update', { incident_id: incident, state: 'resolved', note: 'and again' });
    await failUntilRegressed(incident);
    await expect.poll(async () => (await regressions()) === 2, { timeout: 10_000, message: 'the unsilenced regression' }).toBe(true);
  }, 120_000);

  it('a redrive that dead-letters again notifies operation.failed once', async () => {
    const { rule } = await ok(server, 'alert.rule_create', { name: 'operations', when: { trigger: 'operation.failed' }, destination_ids: [destinationId] });
    const ids = (await databaseOf(server.store).selectFrom('dead_letters').select('dead_letter_id').where('redriven_at', 'is', null).limit(3).execute()).map((r) => r.dead_letter_id);
    const plan = await ok(server, 'event.redrive', { dry_run: true, dead_letter_ids: ids });
    const { operation } = await ok(server, 'event.redrive', { dry_run: false, dead_letter_ids: ids, expected_plan_hash: plan.plan.plan_hash });
    await expect.poll(async () => (await ok(server, 'operation.get', { operation_id: operation!.operation_id })).operation.status === 'completed_with_failures', { timeout: 20_000, message: 'the redrive to finish' }).toBe(true);
    await expect.poll(async () => (await notices({ rule_id: rule.id, status: 'delivered' })).length === 1, { timeout: 10_000, message: 'the operation notice' }).toBe(true);
    expect((await notices({ rule_id: rule.id }))).toEqual([expect.objectContaining({ transition: 'operation.failed', subject_type: 'operation', subject_id: operation!.operation_id })]);
  }, 60_000);

  it('conditions notify once per episode: occurrences in a window, dead letters per minute', async () => {
    const occurrences = (await ok(server, 'alert.rule_create', { name: 'busy incidents', when: { trigger: 'incident.occurrences', threshold: 5, window_s: 3600 }, destination_ids: [destinationId] })).rule;
    const rate = (await ok(server, 'alert.rule_create', { name: 'dead letter rate', when: { trigger: 'dead_letters.rate', per_minute: 3 }, destination_ids: [destinationId] })).rule;
    await failJobs(5);
    const main = (await deadLetterIncidents())[0]!.incident_id;
    await expect.poll(async () => (await notices({ rule_id: rate.id })).length === 1 && (await notices({ rule_id: occurrences.id, subject_id: main })).length === 1, { timeout: 10_000, message: 'the condition notices' }).toBe(true);
    // Still holding after more failures: no new notice. A rule created afterwards notifying shows the evaluator ran since.
    await failJobs(5);
    const marker = (await ok(server, 'alert.rule_create', { name: 'later rate', when: { trigger: 'dead_letters.rate', per_minute: 1 }, destination_ids: [destinationId] })).rule;
    await expect.poll(async () => (await notices({ rule_id: marker.id })).length === 1, { timeout: 10_000, message: 'a later evaluation' }).toBe(true);
    expect(await notices({ rule_id: rate.id })).toEqual([expect.objectContaining({ transition: 'dead_letters.rate', subject_type: 'dead_letters' })]);
    const perIncident = new Map<string, number>();
    for (const n of await notices({ rule_id: occurrences.id })) perIncident.set(n.subject_id!, (perIncident.get(n.subject_id!) ?? 0) + 1);
    expect(perIncident.get(main)).toBe(1);
    expect([...perIncident.values()].every((c) => c === 1)).toBe(true);
  }, 60_000);

  it('a reset applied notifies once, with the reset id', async () => {
    const { rule } = await ok(server, 'alert.rule_create', { name: 'resets', when: { trigger: 'reset.applied' }, destination_ids: [destinationId] });
    const plan = await ok(server, 'runtime.nuke', { dry_run: true });
    const applied = await ok(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: plan.plan.plan_hash as string, reason: 'alerts test' });
    await expect.poll(async () => (await notices({ rule_id: rule.id, status: 'delivered' })).length === 1, { timeout: 10_000, message: 'the reset notice' }).toBe(true);
    const resetId = (applied as { reset_id?: string }).reset_id;
    expect(resetId).toEqual(expect.any(String));
    expect((await notices({ rule_id: rule.id }))[0]).toMatchObject({ transition: 'reset.applied', subject_type: 'reset', subject_id: resetId });
  }, 60_000);
});

describe('mailbox SLA', () => {
  it('an item past its SLA notifies the first destination, then escalates; one decided before the escalation gets none', async () => {
    const escalation = await startWebhookReceiver();
    try {
      const lead = await ok(server, 'alert.destination_create', { name: 'lead', kind: 'webhook', url: escalation.url });
      const { rule } = await ok(server, 'alert.rule_create', { name: 'reviews waiting', when: { trigger: 'mailbox.sla', mailbox_type: 'review' }, destination_ids: [destinationId], escalation_destination_ids: [lead.destination.id] });
      await ok(server, 'event.publish', { event_name: 'review.requested', payload: { review_id: 'r-late' } });
      await ok(server, 'event.publish', { event_name: 'review.requested', payload: { review_id: 'r-decided' } });
      await waitForQuiet(server);
      const items = await databaseOf(server.store).selectFrom('mailbox_items').select(['mailbox_id', 'payload']).where('type', '=', 'review').execute();
      const late = items.find((i) => i.payload.includes('r-late'))!.mailbox_id;
      const decided = items.find((i) => i.payload.includes('r-decided'))!.mailbox_id;

      // Past the 1 s SLA: both notify the first destination.
      await expect.poll(async () => (await notices({ rule_id: rule.id })).filter((n) => n.transition === 'mailbox.sla').length === 2, { timeout: 10_000, message: 'the SLA notices' }).toBe(true);
      const sla = await notices({ rule_id: rule.id });
      expect(sla.filter((n) => n.transition === 'mailbox.sla').every((n) => n.destination_id === destinationId)).toBe(true);
      // Decided by someone other than the publisher (who may not approve an item of their own run).
      const { user } = await ok(server, 'user.create', { display_name: 'reviewer', role: 'reviewer' });
      const { secret: reviewerToken } = await ok(server, 'token.create', { user_id: user.id, name: 'reviewer token' });
      const approved = await server.rpc('mailbox.approve', { mailbox_id: decided, reason: 'looked at in time' }, { token: reviewerToken! });
      expect(approved.error).toBeUndefined();

      // 3 s later still pending: the late one escalates to the lead, the decided one does not.
      const [request] = await escalation.waitForRequests(1);
      const sent = new Webhook(lead.secret!).verify(request!.body, request!.headers as Record<string, string>) as Sent;
      expect(sent).toMatchObject({ type: 'mailbox.sla_escalation', data: { mailbox_id: late } });
      const escalations = (await notices({ rule_id: rule.id })).filter((n) => n.transition === 'mailbox.sla_escalation');
      expect(escalations.map((n) => [n.subject_id, n.destination_id])).toEqual([[late, lead.destination.id]]);
      // Evaluations go on; the decided item never escalates. Wait for two more passes by a third item's SLA notice.
      await ok(server, 'event.publish', { event_name: 'review.requested', payload: { review_id: 'r-third' } });
      await expect.poll(async () => (await notices({ rule_id: rule.id })).filter((n) => n.transition === 'mailbox.sla').length === 3, { timeout: 10_000, message: 'a later SLA notice' }).toBe(true);
      expect((await notices({ subject_id: decided })).map((n) => n.transition)).toEqual(['mailbox.sla']);
      expect((await notices({ subject_id: late })).filter((n) => n.transition === 'mailbox.sla_escalation')).toHaveLength(1);
    } finally {
      await escalation.close();
    }
  }, 60_000);
});
