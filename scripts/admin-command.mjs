#!/usr/bin/env node
// `npm run token|users|audit -- …`: runs an administration command from the server's build
// (rebuilt first when a source is newer), as `npm start` runs the server. Run through tsx, a command
// spent about two seconds compiling TypeScript before doing anything (docs/performance-notes.md).
import { spawnSync } from 'node:child_process';
import { ADMIN_COMMANDS, adminCommandBuild, ensureServerBuild } from './builds.mjs';

const [name, ...args] = process.argv.slice(2);
if (!ADMIN_COMMANDS.includes(name)) {
  console.error(`usage: node scripts/admin-command.mjs ${ADMIN_COMMANDS.join('|')} [arguments]`);
  process.exit(2);
}
try {
  ensureServerBuild();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
const run = spawnSync(process.execPath, [adminCommandBuild(name), ...args], { stdio: 'inherit' });
process.exit(run.status ?? 1);
