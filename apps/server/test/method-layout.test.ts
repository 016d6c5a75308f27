/**
 * Each method is found by its name alone (issue 40): its contract in
 * packages/contract/src/methods/<namespace>.ts, its handler in apps/server/src/methods/<namespace>/<op>.ts
 * and its API tests in apps/server/test/methods/<method>.test.ts, where <namespace> is the part of the
 * name before the dot and <op> the part after it, spelled as in the name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { methodNames } from '@switchboard/contract';
import { handlers } from '../src/methods/registry';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const contractDir = path.join(repo, 'packages/contract/src/methods');
const handlerDir = path.join(repo, 'apps/server/src/methods');
const testDir = path.join(repo, 'apps/server/test/methods');

function parts(method: string): { namespace: string; op: string } {
  const dot = method.indexOf('.');
  return { namespace: method.slice(0, dot), op: method.slice(dot + 1) };
}

/** The methods whose files `missing` does not find, so one failure names every method out of place. */
function missing(where: (method: string) => boolean): string[] {
  return [...methodNames].sort().filter((method) => !where(method));
}

describe('one file per method', () => {
  it('the registry serves exactly the contract methods', () => {
    expect(Object.keys(handlers).sort()).toEqual([...methodNames].sort());
  });

  it('packages/contract/src/methods/<namespace>.ts defines each method', () => {
    expect(
      missing((method) => {
        const file = path.join(contractDir, `${parts(method).namespace}.ts`);
        return fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(`name: '${method}'`);
      }),
    ).toEqual([]);
  });

  it('apps/server/src/methods/<namespace>/<op>.ts holds each handler', () => {
    expect(
      missing((method) => {
        const { namespace, op } = parts(method);
        return fs.existsSync(path.join(handlerDir, namespace, `${op}.ts`));
      }),
    ).toEqual([]);
  });

  it('apps/server/test/methods/<method>.test.ts tests each method', () => {
    expect(missing((method) => fs.existsSync(path.join(testDir, `${method}.test.ts`)))).toEqual([]);
  });

  it('every test file under apps/server/test/methods is named after a method', () => {
    const names = new Set<string>(methodNames);
    const strays = fs
      .readdirSync(testDir)
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => file.slice(0, -'.test.ts'.length))
      .filter((method) => !names.has(method));
    expect(strays).toEqual([]);
  });
});
