/**
 * The audit trail from the command line, against the same store the server uses
 * (SWITCHBOARD_DATA_DIR, default ./data, or SWITCHBOARD_DATABASE_URL).
 *
 *   npm run audit -- verify     walks the hash chain; names the first record that does not match
 *   npm run audit -- export [--since ISO] [--until ISO] [--actor ID] [--method M]
 *                               writes the records, oldest first, as JSON Lines on stdout
 *
 * Exit codes: 0 done (verify: the chain is intact), 1 the chain is broken or the store failed,
 * 2 usage or configuration error.
 */
import type { AuditFilter, Store } from '@switchboard/store';
import { CommandError, UsageError, invokedDirectly, parseOptions, processIo, runAdminCommand, type Io } from './admin-command';

const USAGE = `Usage: npm run audit -- <command>

Commands:
  verify                      check the hash chain; names the first record that does not match
  export [--since ISO] [--until ISO] [--actor ID] [--method M]
                              write the records (oldest first) as JSON Lines on stdout;
                              --since is inclusive, --until exclusive, --actor a user or token id

The store is the one in SWITCHBOARD_DATABASE_URL, or else SWITCHBOARD_DATA_DIR (default ./data).`;

function exportFilter(args: string[]): Omit<AuditFilter, 'beforeSeq'> {
  const { words, options } = parseOptions(args, ['since', 'until', 'actor', 'method']);
  if (words.length) throw new UsageError(`export takes only options; unexpected "${words[0]}"`);
  const filter: Record<string, string> = {};
  for (const [name, value] of options) {
    if (name === 'since' || name === 'until') {
      const at = new Date(value);
      if (Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be an ISO 8601 date-time, for example 2026-01-31T00:00:00Z`);
      filter[name] = at.toISOString();
    } else {
      filter[name] = value;
    }
  }
  return filter;
}

async function run(args: string[], store: () => Promise<Store>, io: Io): Promise<void> {
  const [command, ...rest] = args;
  switch (command) {
    case 'verify': {
      if (rest.length) throw new UsageError('verify takes no arguments');
      const verdict = await (await store()).audit.verify();
      if (!verdict.ok) {
        throw new CommandError(`the chain is broken at record ${verdict.broken.seq}: ${verdict.broken.reason} (${verdict.verified} records before it verified)`);
      }
      await io.out(`Verified ${verdict.verified} audit records: the chain is intact.`);
      return;
    }
    case 'export': {
      const filter = exportFilter(rest);
      for await (const record of (await store()).audit.walk(filter)) await io.out(JSON.stringify(record));
      return;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs the CLI and returns its exit code; the store is opened only for commands that need it. */
export function auditCli(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return runAdminCommand('audit', USAGE, run, args, env, io);
}

if (invokedDirectly(import.meta.url)) process.exitCode = await auditCli(process.argv.slice(2), process.env, processIo);
