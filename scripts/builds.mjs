// The two builds `npm start` and the tests run, each redone when a source is newer than it:
// - the console (Vite, dist/web);
// - the server as plain JavaScript: one esbuild bundle, apps/server/dist/main.mjs. Run through
//   `node --import tsx`, each start spent about 2 s of CPU compiling and loading some hundred
//   TypeScript modules through the loader thread; the bundle starts in about half the time
//   (docs/performance-notes.md). `npm start` and the test servers both run it, so what is tested
//   is what runs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** Next to apps/server/package.json, which the server reads its version from ('../package.json'). */
const serverBuildDir = path.join(root, 'apps', 'server', 'dist');
/** The server build `npm start` and the test servers run (apps/server/src/main.ts, bundled). */
export const serverBuild = path.join(serverBuildDir, 'main.mjs');
const SOURCES = ['apps/server/src', 'packages/contract/src', 'packages/store/src', 'packages/runtime/src'].map((d) => path.join(root, d));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const CONSOLE_INDEX = path.join(root, 'dist', 'web', 'index.html');
const CONSOLE_SOURCES = [path.join(root, 'apps', 'web'), path.join(root, 'packages', 'contract', 'src')];

/** Builds the console when its build is missing or older than a source; throws if the build fails. */
export function ensureConsoleBuild() {
  if (fs.existsSync(CONSOLE_INDEX) && Math.max(...CONSOLE_SOURCES.map(newestMtime)) <= fs.statSync(CONSOLE_INDEX).mtimeMs) return;
  console.log('Building the console…');
  const r = spawnSync(path.join(root, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`building the console failed (exit ${r.status ?? r.signal})`);
}

/** The administration commands (`npm run token`, `users`, `audit`), built beside the server as `cli-<name>.mjs`. */
export const ADMIN_COMMANDS = ['token', 'users', 'audit'];
/** The build of one administration command. */
export const adminCommandBuild = (name) => path.join(serverBuildDir, `cli-${name}.mjs`);

/** The reader threads' script, built beside the server's (apps/server/src/reads/reader-threads.ts). */
const readerThreadBuild = path.join(serverBuildDir, 'reader-thread.mjs');

function stale() {
  if (!fs.existsSync(serverBuild) || !fs.existsSync(readerThreadBuild) || !ADMIN_COMMANDS.every((name) => fs.existsSync(adminCommandBuild(name)))) return true;
  // This file's own changes (the build's options) count as a source too.
  return Math.max(fs.statSync(new URL(import.meta.url)).mtimeMs, ...SOURCES.map(newestMtime)) > fs.statSync(serverBuild).mtimeMs;
}

/**
 * Builds when a source is newer than the build, in a child process (esbuild runs plugins only in
 * its asynchronous API, and callers that spawn synchronously need the build first).
 */
export function ensureServerBuild() {
  if (!stale()) return;
  const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`building the server failed (exit ${r.status ?? r.signal})`);
}

/**
 * Several test workers may build at once: each writes into a folder of its own and renames its
 * files into place, so a reader never sees a half-written file.
 */
async function build() {
  const scratch = path.join(serverBuildDir, `.build-${process.pid}-${Date.now()}`);
  try {
    await esbuild.build({
      entryPoints: {
        main: 'apps/server/src/main.ts',
        'reader-thread': 'apps/server/src/reads/reader-thread.ts',
        ...Object.fromEntries(ADMIN_COMMANDS.map((name) => [`cli-${name}`, `apps/server/src/cli/${name}.ts`])),
      },
      outdir: scratch,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // As under tsx: functions and classes keep their names.
      keepNames: true,
      sourcemap: 'linked',
      logLevel: 'warning',
      absWorkingDir: root,
      // Dependencies stay in node_modules, loaded as they are; only this repository's TypeScript is bundled.
      plugins: [{ name: 'dependencies-external', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith('@switchboard/') ? undefined : { path: a.path, external: true })) }],
    });
    // main.mjs last: its time says whether the build is fresh, so everything it runs is in place first.
    const order = (f) => (f === 'main.mjs' ? 2 : f.endsWith('.mjs') ? 1 : 0);
    const files = fs.readdirSync(scratch).sort((a, b) => order(a) - order(b));
    for (const f of files) fs.renameSync(path.join(scratch, f), path.join(serverBuildDir, f));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === new URL(import.meta.url).pathname) await build();
