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
import fs from 'node:fs';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { Store, type AuditFilter } from '@switchboard/store';
import { ConfigError, loadConfig } from '../config';

const USAGE = `Usage: npm run audit -- <command>

Commands:
  verify                      check the hash chain; names the first record that does not match
  export [--since ISO] [--until ISO] [--actor ID] [--method M]
                              write the records (oldest first) as JSON Lines on stdout;
                              --since is inclusive, --until exclusive, --actor a user or token id

The store is the one in SWITCHBOARD_DATABASE_URL, or else SWITCHBOARD_DATA_DIR (default ./data).`;

class UsageError extends Error {}
class BrokenChain extends Error {}

export interface AuditIo {
  /** May return a promise: export waits for it (stdout's backpressure). */
  out: (line: string) => void | Promise<void>;
  err: (line: string) => void;
}

const EXPORT_FLAGS = { '--since': 'since', '--until': 'until', '--actor': 'actor', '--method': 'method' } as const;

function exportFilter(args: string[]): Omit<AuditFilter, 'beforeSeq'> {
  const filter: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i]!;
    const value = args[i + 1];
    const name = (EXPORT_FLAGS as Record<string, string>)[flag];
    if (!name) throw new UsageError(`unknown option "${flag}" for export`);
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    if (name === 'since' || name === 'until') {
      const at = new Date(value);
      if (Number.isNaN(at.getTime())) throw new UsageError(`${flag} must be an ISO 8601 date-time, for example 2026-01-31T00:00:00Z`);
      filter[name] = at.toISOString();
    } else {
      filter[name] = value;
    }
  }
  return filter;
}

async function run(args: string[], store: () => Promise<Store>, io: AuditIo): Promise<void> {
  const [command, ...rest] = args;
  switch (command) {
    case 'verify': {
      if (rest.length) throw new UsageError('verify takes no arguments');
      const verdict = await (await store()).audit.verify();
      if (!verdict.ok) {
        throw new BrokenChain(`the chain is broken at record ${verdict.broken.seq}: ${verdict.broken.reason} (${verdict.verified} records before it verified)`);
      }
      await io.out(`Verified ${verdict.verified} audit records: the chain is intact.`);
      return;
    }
    case 'export': {
      const filter = exportFilter(rest);
      for await (const record of (await store()).audit.walk(filter)) await io.out(JSON.stringify(record));
      return;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      if (command === undefined) throw new UsageError('a command is required');
      await io.out(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs the CLI and returns its exit code; the store is opened only for commands that need it. */
export async function auditCli(args: string[], env: NodeJS.ProcessEnv, io: AuditIo): Promise<number> {
  let opened: Store | undefined;
  try {
    const config = loadConfig(env);
    await run(args, async () => (opened ??= await Store.open(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir })), io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`audit: ${err.message}`);
      io.err('');
      io.err(USAGE);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.err(`audit: ${err.message}`);
      return 2;
    }
    io.err(err instanceof BrokenChain ? `audit: ${err.message}` : `audit: failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  const code = await auditCli(process.argv.slice(2), process.env, {
    out: async (line) => {
      if (!process.stdout.write(line + '\n')) await once(process.stdout, 'drain');
    },
    err: (line) => process.stderr.write(line + '\n'),
  });
  process.exitCode = code;
}
