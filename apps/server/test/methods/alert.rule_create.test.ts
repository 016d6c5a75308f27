/**
 * Alert configuration through the API: destinations (the secret shown once, a Slack URL never in
 * full), rules and their validation, test notices in the history, resends and silences. Runs on
 * the test engine (SQLite, or PostgreSQL with SWITCHBOARD_TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, ok } from './control-helpers';
import { startTestServer, type TestServer } from './harness';

let server: TestServer;
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

beforeAll(async () => {
  server = await startTestServer();
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('alert destinations', () => {
  it('a webhook gets a whsec_ secret in the creating answer only; a Slack URL is listed without its path', async () => {
    const created = await ok(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', idempotency_key: 'dst-1' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created.destination).toMatchObject({ name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', created_by: expect.any(String) });
    const replayed = await ok(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', idempotency_key: 'dst-1' });
    expect(replayed.secret).toBeUndefined();
    expect(replayed.destination).toEqual(created.destination);

    const slack = await ok(server, 'alert.destination_create', { name: 'ops slack', kind: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXXSECRET' });
    expect(slack.secret).toBeUndefined();
    expect(slack.destination.url).toBe('https://hooks.slack.com/…');

    const listed = await ok(server, 'alert.destinations', {});
    const text = JSON.stringify(listed);
    expect(text).not.toContain(created.secret!);
    expect(text).not.toContain('XXXXSECRET');
    expect(listed.items.map((d) => d.name)).toEqual(['ops webhook', 'ops slack']);
    // Nor does the audit trail keep the Slack URL.
    const audit = await ok(server, 'audit.list', { method: 'alert.destination_create', limit: 10 });
    expect(JSON.stringify(audit)).not.toContain('XXXXSECRET');
  });

  it('refuses a taken name, and deleting a destination a rule uses', async () => {
    await fails(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/other' }, 'INVALID_PARAMS');
    const { items } = await ok(server, 'alert.destinations', {});
    const webhook = items.find((d) => d.name === 'ops webhook')!;
    const { rule } = await ok(server, 'alert.rule_create', { name: 'resets', when: { trigger: 'reset.applied' }, destination_ids: [webhook.id] });
    const inUse = await fails(server, 'alert.destination_delete', { destination_id: webhook.id }, 'DESTINATION_IN_USE');
    expect(inUse.data.details).toMatchObject({ destination_id: webhook.id, rules: ['resets'] });
    await ok(server, 'alert.rule_delete', { rule_id: rule.id });
    const spare = await ok(server, 'alert.destination_create', { name: 'spare', kind: 'webhook', url: 'http://127.0.0.1:9/spare' });
    expect(await ok(server, 'alert.destination_delete', { destination_id: spare.destination.id })).toEqual({ destination_id: spare.destination.id, deleted: true });
    await fails(server, 'alert.destination_delete', { destination_id: spare.destination.id }, 'NOT_FOUND');
  });
});

describe('alert rules', () => {
  it('creates, lists, updates and deletes; unknown destinations are NOT_FOUND', async () => {
    const { items } = await ok(server, 'alert.destinations', {});
    const webhook = items.find((d) => d.name === 'ops webhook')!;
    const missing = await fails(server, 'alert.rule_create', { name: 'nowhere', when: { trigger: 'node.dead' }, destination_ids: ['dst_nope'] }, 'NOT_FOUND');
    expect(missing.data.details).toMatchObject({ resource: 'destination', id: 'dst_nope' });
    await fails(server, 'alert.rule_create', { name: 'bad escalation', when: { trigger: 'node.dead' }, destination_ids: [webhook.id], escalation_destination_ids: [webhook.id] }, 'INVALID_PARAMS');
    await fails(server, 'alert.rule_create', { name: 'bad trigger', when: { trigger: 'incident.occurrences', threshold: 0, window_s: 60 }, destination_ids: [webhook.id] } as never, 'INVALID_PARAMS');

    const { rule } = await ok(server, 'alert.rule_create', { name: 'opened', when: { trigger: 'incident.opened', min_level: 'error' }, destination_ids: [webhook.id] });
    expect(rule).toMatchObject({ name: 'opened', when: { trigger: 'incident.opened', min_level: 'error' }, destination_ids: [webhook.id], escalation_destination_ids: [], enabled: true, source: 'api' });
    await fails(server, 'alert.rule_create', { name: 'opened', when: { trigger: 'node.dead' }, destination_ids: [webhook.id] }, 'INVALID_PARAMS');
    const updated = await ok(server, 'alert.rule_update', { rule_id: rule.id, enabled: false, when: { trigger: 'incident.regressed' } });
    expect(updated.rule).toMatchObject({ id: rule.id, enabled: false, when: { trigger: 'incident.regressed' }, destination_ids: [webhook.id] });
    await fails(server, 'alert.rule_update', { rule_id: rule.id, destination_ids: ['dst_nope'] }, 'NOT_FOUND');
    await fails(server, 'alert.rule_update', { rule_id: 'alr_nope', enabled: true }, 'NOT_FOUND');
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)).toMatchObject({ enabled: false });
    await ok(server, 'alert.rule_delete', { rule_id: rule.id });
    await fails(server, 'alert.rule_delete', { rule_id: rule.id }, 'NOT_FOUND');
  });
});

describe('bundle rules', () => {
  it('are added at boot with source bundle; a destination created under a name they use joins them and is in use', async () => {
    const bundleRules = (await ok(server, 'alert.rules', {})).items.filter((r) => r.source === 'bundle');
    expect(bundleRules.map((r) => r.name).sort()).toEqual(['Fraud reviews waiting', 'New error incidents']);
    const waiting = bundleRules.find((r) => r.name === 'Fraud reviews waiting')!;
    expect(waiting).toMatchObject({ when: { trigger: 'mailbox.sla', mailbox_type: 'fraud_review' }, destination_ids: [], escalation_destination_ids: [] });
    const onCall = await ok(server, 'alert.destination_create', { name: 'on-call', kind: 'webhook', url: 'http://127.0.0.1:9/on-call' });
    const after = (await ok(server, 'alert.rules', {})).items.find((r) => r.id === waiting.id)!;
    expect(after.destination_ids).toEqual([onCall.destination.id]);
    await fails(server, 'alert.destination_delete', { destination_id: onCall.destination.id }, 'DESTINATION_IN_USE');
    // The stored rule is what counts: an update through the API changes it.
    const updated = await ok(server, 'alert.rule_update', { rule_id: waiting.id, enabled: false });
    expect(updated.rule).toMatchObject({ source: 'bundle', enabled: false, destination_ids: [onCall.destination.id] });
  });
});

describe('notices and silences', () => {
  it('alert.test makes a pending notice in the history; resending one that did not fail is refused', async () => {
    const { items } = await ok(server, 'alert.destinations', {});
    const webhook = items.find((d) => d.name === 'ops webhook')!;
    await fails(server, 'alert.test', { destination_id: 'dst_nope' }, 'NOT_FOUND');
    const { notice } = await ok(server, 'alert.test', { destination_id: webhook.id });
    expect(notice).toMatchObject({ destination_id: webhook.id, destination_name: 'ops webhook', kind: 'webhook', transition: 'test', subject_type: 'destination', status: 'pending', attempts: 0 });
    const history = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 10 });
    expect(history.items.map((n) => n.id)).toContain(notice.id);
    await fails(server, 'alert.notice_resend', { notice_id: 'ntc_nope' }, 'NOT_FOUND');
    const known = (await ok(server, 'alert.notices', { limit: 1 })).items[0]!;
    if (known.status !== 'failed') await fails(server, 'alert.notice_resend', { notice_id: known.id }, 'NOTICE_NOT_FAILED');
  });

  it('pages the history newest first with a cursor bound to the filter', async () => {
    const { items } = await ok(server, 'alert.destinations', {});
    const webhook = items.find((d) => d.name === 'ops webhook')!;
    for (let i = 0; i < 3; i++) await ok(server, 'alert.test', { destination_id: webhook.id });
    const first = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 2, cursor: first.next_cursor! });
    const all = await ok(server, 'alert.notices', { destination_id: webhook.id, limit: 100 });
    expect([...first.items, ...second.items].map((n) => n.id)).toEqual(all.items.slice(0, 4).map((n) => n.id));
    await fails(server, 'alert.notices', { limit: 2, cursor: first.next_cursor! }, 'INVALID_CURSOR');
  });

  it('silences a rule until a time, lists it on the rule, and ends it once', async () => {
    const { items } = await ok(server, 'alert.destinations', {});
    const webhook = items.find((d) => d.name === 'ops webhook')!;
    const { rule } = await ok(server, 'alert.rule_create', { name: 'dead nodes', when: { trigger: 'node.dead' }, destination_ids: [webhook.id] });
    await fails(server, 'alert.silence_create', { rule_id: rule.id, until: new Date(Date.now() - 1000).toISOString(), reason: 'past' }, 'INVALID_PARAMS');
    await fails(server, 'alert.silence_create', { rule_id: 'alr_nope', until: inAnHour(), reason: 'no rule' }, 'NOT_FOUND');
    await fails(server, 'alert.silence_create', { incident_id: 'inc_nope', until: inAnHour(), reason: 'no incident' }, 'NOT_FOUND');
    await fails(server, 'alert.silence_create', { until: inAnHour(), reason: 'neither' }, 'INVALID_PARAMS');
    const until = inAnHour();
    const { silence } = await ok(server, 'alert.silence_create', { rule_id: rule.id, until, reason: 'maintenance window' });
    expect(silence).toMatchObject({ rule_id: rule.id, until, reason: 'maintenance window', active: true });
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)!.silenced_until).toBe(until);
    const ended = await ok(server, 'alert.silence_end', { silence_id: silence.id });
    expect(ended).toMatchObject({ already_ended: false, silence: { id: silence.id, active: false, ended_at: expect.any(String) } });
    expect((await ok(server, 'alert.silence_end', { silence_id: silence.id })).already_ended).toBe(true);
    expect((await ok(server, 'alert.silences', {})).items.map((s) => s.id)).not.toContain(silence.id);
    expect((await ok(server, 'alert.silences', { include_ended: true })).items.map((s) => s.id)).toContain(silence.id);
    expect((await ok(server, 'alert.rules', {})).items.find((r) => r.id === rule.id)!.silenced_until).toBeUndefined();
    const audit = await ok(server, 'audit.list', { method: 'alert.silence_create', limit: 10 });
    expect(audit.items.find((r) => r.outcome === 'ok')!.target_ids).toContain(silence.id);
  });
});
