#!/usr/bin/env node
/**
 * Prints the console's initial JavaScript size (gzipped): the entry script and every module it
 * preloads, as index.html references them. Route chunks load later and are listed apart.
 * Exits 1 when the initial size is over the budget (150 KB gzipped).
 *   node scripts/bundle-size.mjs [distDir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 150 * 1024;
const dist = path.resolve(process.argv[2] ?? 'dist/web');
const indexFile = path.join(dist, 'index.html');
if (!fs.existsSync(indexFile)) {
  console.error(`No build at ${dist}: run \`npm run build\` first.`);
  process.exit(2);
}
const html = fs.readFileSync(indexFile, 'utf8');
const initial = new Set();
for (const m of html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)) initial.add(m[1]);
for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)) initial.add(m[1]);

const gz = (file) => gzipSync(fs.readFileSync(file), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const assets = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));

let total = 0;
console.log('Initial JavaScript (loaded by index.html):');
for (const src of initial) {
  const size = gz(path.join(dist, src.replace(/^\//, '')));
  total += size;
  console.log(`  ${src.padEnd(48)} ${kb(size).padStart(9)} gzip`);
}
console.log('Route chunks (loaded on demand):');
for (const file of assets) {
  if ([...initial].some((src) => src.endsWith(`/${file}`))) continue;
  console.log(`  /assets/${file.padEnd(40)} ${kb(gz(path.join(dist, 'assets', file))).padStart(9)} gzip`);
}
const verdict = total <= BUDGET_BYTES ? 'within' : 'OVER';
console.log(`Initial JavaScript: ${kb(total)} gzipped (${verdict} the ${kb(BUDGET_BYTES)} budget)`);
process.exit(total <= BUDGET_BYTES ? 0 : 1);
