import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUNDLE_PATH } from '../runtime';
import { minimalBundle, tempDir, writeBundle } from '../testing/runtime-fixture';
import { BundleError, fingerprintOf, loadBundle } from './load';

function loadError(bundle: Record<string, unknown>): BundleError {
  const file = writeBundle(tempDir(), bundle);
  try {
    loadBundle(file);
  } catch (err) {
    expect(err).toBeInstanceOf(BundleError);
    return err as BundleError;
  }
  throw new Error('bundle loaded without error');
}

describe('bundle loader', () => {
  it('loads the demo bundle', () => {
    const b = loadBundle(DEFAULT_BUNDLE_PATH);
    expect(b.definition.name).toBe('support-desk');
    expect(b.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('names file, path and problem for a schema error', () => {
    const err = loadError(minimalBundle({ runtime: { max_attempts: 0 } }));
    expect(err.at).toBe('runtime.max_attempts');
    expect(err.message).toMatch(/bundle\.json: runtime\.max_attempts: /);
  });

  it('names unknown references', () => {
    const bundle = minimalBundle();
    (bundle.events as any)['order.placed'].subscribers.push({ type: 'node', id: 'ghost' });
    const err = loadError(bundle);
    expect(err.at).toBe('events.order.placed.subscribers[1].id');
    expect(err.problem).toBe('unknown node "ghost"');
  });

  it('names a declared payload index field that is not a payload path', () => {
    const bundle = minimalBundle();
    (bundle.events as any)['order.placed'].indexed_payload_fields = ['order_id', 'customer..id'];
    expect(loadError(bundle)).toMatchObject({ at: 'events.order.placed.indexed_payload_fields[1]', problem: expect.stringMatching(/path segment ""/) });
  });

  it('rejects bad gate conditions, unsupported schema keywords and unparseable files', () => {
    const gate = loadError(minimalBundle({ entity_types: { order: { initial_state: 'new', states: ['new'], gates: { g: 'amount about 3' } } } }));
    expect(gate.at).toBe('entity_types.order.gates.g');
    const schemaKw = minimalBundle();
    (schemaKw.events as any)['order.placed'].payload_schema.properties.amount = { type: 'number', format: 'money' };
    const kw = loadError(schemaKw);
    expect(kw.at).toBe('events.order.placed.payload_schema.properties.amount.format');
    expect(kw.problem).toBe('unknown format "money"');
    const typo = minimalBundle();
    (typo.events as any)['order.placed'].payload_schema.properties.order_id = { type: 'string', minLenght: 3 };
    expect(loadError(typo)).toMatchObject({ at: 'events.order.placed.payload_schema.properties.order_id.minLenght', problem: 'unsupported schema keyword "minLenght"' });
    const badType = minimalBundle();
    (badType.events as any)['order.placed'].payload_schema.properties.amount = { type: 'numbr' };
    expect(loadError(badType).at).toBe('events.order.placed.payload_schema.properties.amount.type');
    const dir = tempDir();
    const file = path.join(dir, 'broken.yaml');
    fs.writeFileSync(file, 'name: [unclosed');
    expect(() => loadBundle(file)).toThrow(/broken\.yaml: \(syntax\): /);
    expect(() => loadBundle(path.join(dir, 'missing.yaml'))).toThrow(/missing\.yaml: \(file\): cannot read: ENOENT/);
  });

  it('checks mailbox_types: opened type, known deciding roles, enough named approvers, an approval count', () => {
    const withGate = (mailboxTypes: unknown) => {
      const bundle = minimalBundle({ mailbox_types: mailboxTypes });
      (bundle.nodes as any)['review-order'] = { kind: 'approval_gate', mailbox_type: 'order_review', source_flow: 'orders' };
      (bundle.events as any)['order.placed'].subscribers.push({ type: 'node', id: 'review-order' });
      return bundle;
    };
    expect(loadError(withGate({ order_reveiw: {} }))).toMatchObject({ at: 'mailbox_types.order_reveiw', problem: 'no approval_gate node opens "order_reveiw" items' });
    expect(loadError(withGate({ order_review: { deciders: { roles: ['auditor'] } } }))).toMatchObject({
      at: 'mailbox_types.order_review.deciders.roles[0]',
      problem: 'unknown role "auditor" (one of viewer, reviewer, operator, admin)',
    });
    expect(loadError(withGate({ order_review: { deciders: { roles: ['viewer'] } } })).problem).toBe('role "viewer" cannot decide mailbox items (it lacks mailbox:decide)');
    expect(loadError(withGate({ order_review: { deciders: {} } })).at).toBe('mailbox_types.order_review.deciders');
    expect(loadError(withGate({ order_review: { deciders: { users: ['usr_a', 'usr_a'] }, approvals_required: 2 } }))).toMatchObject({
      at: 'mailbox_types.order_review.approvals_required',
      problem: 'needs 2 distinct approvers but only 1 user(s) may decide',
    });
    expect(loadError(withGate({ order_review: { approvals_required: 0 } })).at).toBe('mailbox_types.order_review.approvals_required');
    const file = writeBundle(tempDir(), withGate({ order_review: { deciders: { roles: ['reviewer'], users: ['usr_a'] }, approvals_required: 2 } }));
    expect(loadBundle(file).definition.mailbox_types.order_review).toEqual({ deciders: { roles: ['reviewer'], users: ['usr_a'] }, approvals_required: 2 });
    // The demo bundle's fraud reviews need two people.
    expect(loadBundle(DEFAULT_BUNDLE_PATH).definition.mailbox_types.fraud_review?.approvals_required).toBe(2);
  });

  it('checks alert rules: a known trigger, unique names, escalation with an SLA rule only, a declared SLA', () => {
    const withRules = (rules: unknown[], sla?: unknown) => {
      const bundle = minimalBundle({ alerts: { rules }, ...(sla ? { mailbox_types: { order_review: { sla } } } : {}) });
      (bundle.nodes as any)['review-order'] = { kind: 'approval_gate', mailbox_type: 'order_review', source_flow: 'orders' };
      (bundle.events as any)['order.placed'].subscribers.push({ type: 'node', id: 'review-order' });
      return bundle;
    };
    const opened = { name: 'opened', when: { trigger: 'incident.opened' }, destinations: ['on-call'] };
    expect(loadError(withRules([{ ...opened, when: { trigger: 'incident.closed' } }])).at).toBe('alerts.rules[0].when.trigger');
    expect(loadError(withRules([opened, opened]))).toMatchObject({ at: 'alerts.rules[1].name', problem: 'duplicate alert rule name "opened"' });
    expect(loadError(withRules([{ ...opened, escalation_destinations: ['lead'] }]))).toMatchObject({ at: 'alerts.rules[0].escalation_destinations' });
    const sla = { name: 'waiting', when: { trigger: 'mailbox.sla', mailbox_type: 'order_review' }, destinations: ['on-call'], escalation_destinations: ['lead'] };
    expect(loadError(withRules([sla]))).toMatchObject({ at: 'alerts.rules[0].when.mailbox_type', problem: 'mailbox type "order_review" declares no sla (mailbox_types.order_review.sla)' });
    const file = writeBundle(tempDir(), withRules([opened, sla], { pending_s: 60, escalate_after_s: 300 }));
    const loaded = loadBundle(file).definition;
    expect(loaded.alerts.rules.map((r) => r.name)).toEqual(['opened', 'waiting']);
    expect(loaded.mailbox_types.order_review?.sla).toEqual({ pending_s: 60, escalate_after_s: 300 });
  });

  it('maps an alert trigger renamed since (ADR 0017) to its new name, with a warning', () => {
    const renamed = ['node', 'dead'].join('.'); // spelled apart so the rename's codemod leaves it
    const file = writeBundle(tempDir(), minimalBundle({ alerts: { rules: [{ name: 'dead', when: { trigger: renamed }, destinations: ['on-call'] }] } }));
    const loaded = loadBundle(file);
    expect(loaded.definition.alerts.rules[0]?.when).toEqual({ trigger: 'server.dead' });
    expect(loaded.warnings).toEqual([`alerts.rules[0].when.trigger: "${renamed}" is now "server.dead"; accepted as "server.dead"`]);
    expect(loadBundle(writeBundle(tempDir(), minimalBundle())).warnings).toEqual([]);
  });

  it('gives the same fingerprint for the same content regardless of key order and format', () => {
    const a = minimalBundle();
    const reversed = Object.fromEntries(Object.entries(a).reverse());
    expect(fingerprintOf(a)).toBe(fingerprintOf(reversed));
    const dir = tempDir();
    const json = loadBundle(writeBundle(dir, a));
    const yamlFile = path.join(dir, 'bundle.yaml');
    fs.writeFileSync(yamlFile, stringify(reversed));
    expect(loadBundle(yamlFile).fingerprint).toBe(json.fingerprint);
    expect(fingerprintOf({ ...a, version: '2' })).not.toBe(json.fingerprint);
  });
});
