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
