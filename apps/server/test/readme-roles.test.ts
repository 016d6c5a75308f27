/**
 * The README's "Roles and scopes" tables are what the server enforces and publishes: the role
 * table matches each role's scopes, the scope table lists exactly the methods rpc.discover gives
 * that scope (x-scope), and each method's x-roles are the README roles holding its scope. Any
 * drift either way fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROLES, SCOPES, roleScopes } from '@switchboard/contract';
import { startTestServer, type TestServer } from './harness';

const readmePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../README.md');

interface PublishedMethod {
  name: string;
  'x-scope': string;
  'x-roles': string[];
}

/** The section's table rows whose first cell is a code span: first cell → the code spans of the second. */
function tableOf(section: string, header: string): Map<string, string[]> {
  const start = section.indexOf(header);
  if (start < 0) throw new Error(`README: no table headed "${header}" in Roles and scopes`);
  const rows = new Map<string, string[]>();
  for (const line of section.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const key = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1];
    if (!key) throw new Error(`README: a row of "${header}" does not start with a code span: ${line}`);
    if (rows.has(key)) throw new Error(`README: "${key}" is listed twice in "${header}"`);
    rows.set(key, [...(cells[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  }
  return rows;
}

function rolesAndScopesSection(): string {
  const readme = fs.readFileSync(readmePath, 'utf8');
  const start = readme.indexOf('\n## Roles and scopes\n');
  if (start < 0) throw new Error('README: no "## Roles and scopes" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

let server: TestServer;
let published: PublishedMethod[];

beforeAll(async () => {
  server = await startTestServer();
  const res = await server.rpc('rpc.discover', {});
  if (res.error) throw new Error(JSON.stringify(res.error));
  published = (res.result as unknown as { methods: PublishedMethod[] }).methods;
});

afterAll(async () => {
  await server?.close();
});

test('the role table lists every role with exactly its scopes', () => {
  const roles = tableOf(rolesAndScopesSection(), '| role | scopes |');
  expect([...roles.keys()]).toEqual([...ROLES]);
  for (const role of ROLES) expect({ role, scopes: roles.get(role) }).toEqual({ role, scopes: [...roleScopes[role]] });
});

test('the scope table lists every scope with exactly the methods rpc.discover gives it', () => {
  const scopes = tableOf(rolesAndScopesSection(), '| scope | methods |');
  expect([...scopes.keys()]).toEqual([...SCOPES]);
  for (const scope of SCOPES) {
    const discovered = published.filter((m) => m['x-scope'] === scope).map((m) => m.name).sort();
    expect({ scope, methods: [...scopes.get(scope)!].sort() }).toEqual({ scope, methods: discovered });
  }
  // Every published method has a scope the table knows.
  for (const method of published) expect({ method: method.name, known: scopes.has(method['x-scope']) }).toEqual({ method: method.name, known: true });
});

test("each method's x-roles are the README roles that hold its scope", () => {
  const roles = tableOf(rolesAndScopesSection(), '| role | scopes |');
  for (const method of published) {
    const holders = [...roles].filter(([, scopes]) => scopes.includes(method['x-scope'])).map(([role]) => role);
    expect({ method: method.name, roles: method['x-roles'] }).toEqual({ method: method.name, roles: holders });
  }
});
