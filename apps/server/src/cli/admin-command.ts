/**
 * What the command-line tools (`npm run token`, `npm run users`, `npm run audit`) share: the store they open
 * (the server's, from the same configuration), how failures become exit codes, and their tables.
 *
 * Exit codes: 0 done, 1 the request could not be carried out (unknown id, refused change),
 * 2 usage or configuration error.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Store } from '@switchboard/store';
import { ConfigError, loadConfig, storeLocation } from '../config';

/** Wrong arguments: the usage text follows the message. */
export class UsageError extends Error {}
/** The arguments were fine but the request cannot be carried out. */
export class CommandError extends Error {}

export interface Io {
  /** May return a promise: long outputs wait for it (stdout's backpressure). */
  out: (line: string) => void | Promise<void>;
  err: (line: string) => void;
}

/** Left-aligned columns, two spaces apart; the first row is the header. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col]!)).join('  ').trimEnd());
}

/**
 * Splits `args` into words and `--name value` (or `--name=value`) options, refusing options not in
 * `known` and options given without a value.
 */
export function parseOptions(args: readonly string[], known: readonly string[]): { words: string[]; options: Map<string, string> } {
  const words: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (!known.includes(name)) throw new UsageError(`unknown option --${name}`);
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (options.has(name)) throw new UsageError(`--${name} is given twice`);
    options.set(name, value);
  }
  return { words, options };
}

export type CommandRunner = (args: string[], store: () => Promise<Store>, io: Io) => Promise<void>;

/** Runs one command and returns its exit code; the store is opened only for commands that need it. */
export async function runAdminCommand(program: string, usage: string, run: CommandRunner, args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let opened: Store | undefined;
  try {
    const [command] = args;
    if (command === undefined) throw new UsageError('a command is required');
    if (['help', '--help', '-h'].includes(command)) {
      await io.out(usage);
      return 0;
    }
    const config = loadConfig(env);
    await run(args, async () => (opened ??= await Store.open(storeLocation(config))), io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${program}: ${err.message}`);
      io.err('');
      io.err(usage);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.err(`${program}: ${err.message}`);
      return 2;
    }
    if (err instanceof CommandError) {
      io.err(`${program}: ${err.message}`);
      return 1;
    }
    io.err(`${program}: failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

/** True when the module at `moduleUrl` is the script node was started with (not imported by a test). */
export function invokedDirectly(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(fs.realpathSync(process.argv[1])).href;
}

export const processIo: Io = {
  out: async (line) => {
    if (!process.stdout.write(line + '\n')) await once(process.stdout, 'drain');
  },
  err: (line) => process.stderr.write(line + '\n'),
};
