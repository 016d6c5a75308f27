/**
 * Access-token administration for operators, against the same store the server uses
 * (SWITCHBOARD_DATA_DIR, default ./data). Safe to run while the server is up: SQLite serialises
 * the writes, and the server reads tokens per request, so a revoke applies to the next request.
 * Creating and revoking append an audit record (channel cli) in the same transaction.
 *
 *   npm run token -- create NAME      prints the new token's id and secret (the secret only this once)
 *   npm run token -- list             id, name, prefix, created, last used, revoked; never secrets
 *   npm run token -- revoke ID        revokes one token (its browser sessions end with it)
 *
 * Exit codes: 0 done, 1 the request could not be carried out (unknown id), 2 usage or configuration error.
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Store, type TokenRecord } from '@switchboard/store';
import { ConfigError, loadConfig } from '../config';
import { cliAudit, osUser } from './cli-audit';

const USAGE = `Usage: npm run token -- <command>

Commands:
  create NAME   create a token; prints its id and its secret (shown once)
  list          list tokens: id, name, prefix, created, last used, revoked
  revoke ID     revoke the token with that id

The store is the one in SWITCHBOARD_DATA_DIR (default ./data).`;

const MAX_NAME_LENGTH = 100;

class UsageError extends Error {}
class CommandError extends Error {}

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col]!)).join('  ').trimEnd());
}

function listLines(tokens: TokenRecord[]): string[] {
  if (tokens.length === 0) return ['No tokens yet. Create one with: npm run token -- create NAME'];
  const rows = [['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED']];
  for (const t of tokens) rows.push([t.id, t.name, `${t.prefix}…`, t.created_at, t.last_used_at ?? 'never', t.revoked_at ?? '-']);
  return table(rows);
}

async function run(args: string[], store: () => Promise<Store>, io: Io): Promise<void> {
  const [command, ...rest] = args;
  switch (command) {
    case 'create': {
      const name = rest.join(' ').trim();
      if (!name) throw new UsageError('create needs a NAME, for example: npm run token -- create ci-pipeline');
      if (name.length > MAX_NAME_LENGTH) throw new UsageError(`NAME must be at most ${MAX_NAME_LENGTH} characters`);
      const s = await store();
      const { token, secret } = await s.transaction(async (tx) => {
        const created = await s.tokens.create(name, {}, tx);
        await cliAudit(s).record({ channel: 'cli', method: 'cli.token.create', params: { name, os_user: osUser() }, result: { token: created.token, user_id: created.token.user_id }, outcome: 'ok' }, tx);
        return created;
      });
      io.out(`Created token ${token.id} "${token.name}".`);
      io.out('');
      io.out(`  ${secret}`);
      io.out('');
      io.out('This secret is shown once and cannot be read back; store it now.');
      io.out('Send it as "Authorization: Bearer <secret>", or paste it into the console sign-in.');
      return;
    }
    case 'list': {
      if (rest.length) throw new UsageError('list takes no arguments');
      for (const line of listLines(await (await store()).tokens.list())) io.out(line);
      return;
    }
    case 'revoke': {
      if (rest.length !== 1 || !rest[0]) throw new UsageError('revoke needs exactly one token ID (see: npm run token -- list)');
      const id = rest[0];
      const s = await store();
      const known = (await s.tokens.list()).find((t) => t.id === id);
      if (!known) throw new CommandError(`No token with id "${id}". See the ids with: npm run token -- list`);
      if (known.revoked_at) {
        io.out(`Token ${id} "${known.name}" was already revoked at ${known.revoked_at}.`);
        return;
      }
      await s.transaction(async (tx) => {
        await s.tokens.revoke(id, tx);
        await cliAudit(s).record({ channel: 'cli', method: 'cli.token.revoke', params: { token_id: id, os_user: osUser() }, outcome: 'ok' }, tx);
      });
      io.out(`Revoked token ${id} "${known.name}". Requests and new sign-ins with it are refused from now on;`);
      io.out('WebSocket streams it opened earlier stay open until they disconnect.');
      return;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      if (command === undefined) throw new UsageError('a command is required');
      io.out(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs the CLI and returns its exit code; the store is opened only for commands that need it. */
export async function tokenCli(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let opened: Store | undefined;
  try {
    const config = loadConfig(env);
    await run(args, async () => (opened ??= await Store.open(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir })), io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`token: ${err.message}`);
      io.err('');
      io.err(USAGE);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.err(`token: ${err.message}`);
      return 2;
    }
    if (err instanceof CommandError) {
      io.err(`token: ${err.message}`);
      return 1;
    }
    io.err(`token: failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  const code = await tokenCli(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
  });
  process.exitCode = code;
}
