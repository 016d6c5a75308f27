#!/usr/bin/env node
// Runs every test runner (typecheck, lint, vitest, Playwright), then prints one line of totals:
// "N passed, N failed". Exits non-zero if anything failed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;
let passed = 0;
let failed = 0;

console.log('\n== typecheck');
if (run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']) === 0) passed += 1;
else failed += 1;

console.log('\n== lint (ESLint: layer boundaries, hooks, TypeScript)');
if (run(bin('eslint'), ['--cache', '--cache-location', 'node_modules/.cache/eslint', '.']) === 0) passed += 1;
else failed += 1;

console.log('\n== unit, store and API tests (vitest)');
const vitestJson = path.join(root, 'test-results', 'vitest.json');
fs.mkdirSync(path.dirname(vitestJson), { recursive: true });
fs.rmSync(vitestJson, { force: true });
const vitestStatus = run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
if (fs.existsSync(vitestJson)) {
  const r = JSON.parse(fs.readFileSync(vitestJson, 'utf8'));
  passed += r.numPassedTests;
  // A file that failed without a failing test (an import or setup error) counts once; a failing
  // test is not counted again through the file and describe blocks around it.
  const brokenFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'));
  failed += r.numFailedTests + brokenFiles.length;
} else if (vitestStatus !== 0) failed += 1;

if (process.env.SKIP_E2E !== '1') {
  console.log('\n== build the console');
  if (run('npm', ['run', 'build', '--silent']) !== 0) failed += 1;
  console.log('\n== end-to-end tests (Playwright, Chromium)');
  const pwJson = path.join(root, 'test-results', 'playwright.json');
  fs.rmSync(pwJson, { force: true });
  const pwStatus = run(bin('playwright'), ['test', '-c', 'e2e/playwright.config.ts'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  if (fs.existsSync(pwJson)) {
    const r = JSON.parse(fs.readFileSync(pwJson, 'utf8'));
    passed += r.stats?.expected ?? 0;
    failed += (r.stats?.unexpected ?? 0) + (r.stats?.flaky ?? 0);
    if (pwStatus !== 0 && !(r.stats?.unexpected > 0)) failed += 1;
  } else if (pwStatus !== 0) failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
