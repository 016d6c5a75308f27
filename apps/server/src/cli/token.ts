/**
 * Access-token administration for operators, against the same store the server uses
 * (SWITCHBOARD_DATA_DIR, default ./data, or SWITCHBOARD_DATABASE_URL). Safe to run while the
 * server is up: the server sees token changes before its next request (see TokenRepository).
 *
 *   npm run token -- create NAME [--user USER_ID] [--scopes a,b]
 *                                     prints the new token's id and secret (the secret only this once)
 *   npm run token -- list             id, name, user, scopes, prefix, created, last used, revoked; never secrets
 *   npm run token -- revoke ID        revokes one token (its browser sessions end with it)
 *
 * Creating and revoking append an audit record (channel cli) in the same transaction.
 *
 * Exit codes: 0 done, 1 the request could not be carried out (unknown id), 2 usage or configuration error.
 */
import { SCOPES, isRole, isScope, roleScopes, type Scope } from '@switchboard/contract';
import type { Store, TokenRecord, UserRecord } from '@switchboard/store';
import { CommandError, UsageError, invokedDirectly, parseOptions, processIo, runAdminCommand, table, type Io } from './admin-command';
import { cliAudit, osUser } from './cli-audit';

const USAGE = `Usage: npm run token -- <command>

Commands:
  create NAME [--user USER_ID] [--scopes a,b]
                create a token; prints its id and its secret (shown once). Without --user the
                token gets a new admin user named after it. --scopes narrows the token below its
                user's role (a scope the role lacks is never granted).
  list          list tokens: id, name, user, scopes, prefix, created, last used, revoked
  revoke ID     revoke the token with that id

Scopes: ${SCOPES.join(', ')}
People: npm run users -- list
The store is the one in SWITCHBOARD_DATA_DIR (default ./data), or SWITCHBOARD_DATABASE_URL.`;

const MAX_NAME_LENGTH = 100;

function scopesOption(value: string | undefined): Scope[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw new UsageError('--scopes needs at least one scope');
  const unknown = names.filter((s) => !isScope(s));
  if (unknown.length) throw new UsageError(`unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `"${s}"`).join(', ')}; scopes are: ${SCOPES.join(', ')}`);
  return [...new Set(names as Scope[])];
}

function userLabel(user: UserRecord | undefined, id: string | null): string {
  if (!user) return id ?? '-';
  return `${user.display_name} (${user.role}${user.disabled ? ', disabled' : ''})`;
}

function listLines(tokens: TokenRecord[], users: UserRecord[]): string[] {
  if (tokens.length === 0) return ['No tokens yet. Create one with: npm run token -- create NAME'];
  const byId = new Map(users.map((u) => [u.id, u]));
  const rows = [['ID', 'NAME', 'USER', 'SCOPES', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED']];
  for (const t of tokens) {
    const scopes = t.scopes ? (JSON.parse(t.scopes) as string[]).join(',') : 'role';
    rows.push([t.id, t.name, userLabel(byId.get(t.user_id ?? ''), t.user_id), scopes, `${t.prefix}…`, t.created_at, t.last_used_at ?? 'never', t.revoked_at ?? '-']);
  }
  return table(rows);
}

async function create(args: string[], store: () => Promise<Store>, io: Io): Promise<void> {
  const { words, options } = parseOptions(args, ['user', 'scopes']);
  const name = words.join(' ').trim();
  if (!name) throw new UsageError('create needs a NAME, for example: npm run token -- create ci-pipeline');
  if (name.length > MAX_NAME_LENGTH) throw new UsageError(`NAME must be at most ${MAX_NAME_LENGTH} characters`);
  const scopes = scopesOption(options.get('scopes'));
  const s = await store();
  const userId = options.get('user');
  const user = userId === undefined ? undefined : await s.users.get(userId);
  if (userId !== undefined && !user) throw new CommandError(`No user with id "${userId}". See the ids with: npm run users -- list`);
  const { token, secret } = await s.transaction(async (tx) => {
    const created = await s.tokens.create(name, { userId: user?.id, scopes }, tx);
    await cliAudit(s).record(
      { channel: 'cli', method: 'cli.token.create', params: { name, user_id: userId, scopes, os_user: osUser() }, result: { token: created.token, user_id: created.token.user_id }, outcome: 'ok' },
      tx,
    );
    return created;
  });
  const owner = user ?? (await s.users.get(token.user_id!));
  io.out(`Created token ${token.id} "${token.name}" for ${owner ? `${owner.display_name} (${owner.id}, ${owner.role})` : token.user_id}${user ? '' : ', a new admin named after the token'}.`);
  if (scopes) io.out(`Narrowed to: ${scopes.join(', ')}.`);
  const role = user?.role;
  const lacking = scopes && isRole(role) ? scopes.filter((sc) => !roleScopes[role].includes(sc)) : [];
  if (lacking.length) io.out(`Note: the ${user!.role} role lacks ${lacking.join(', ')}; the token has ${lacking.length > 1 ? 'them' : 'it'} only if the user's role grows to include ${lacking.length > 1 ? 'them' : 'it'}.`);
  if (user?.disabled) io.out(`Note: ${user.display_name} is disabled; the token works once they are enabled (npm run users -- enable ${user.id}).`);
  io.out('');
  io.out(`  ${secret}`);
  io.out('');
  io.out('This secret is shown once and cannot be read back; store it now.');
  io.out('Send it as "Authorization: Bearer <secret>", or paste it into the console sign-in.');
}

async function run(args: string[], store: () => Promise<Store>, io: Io): Promise<void> {
  const [command, ...rest] = args;
  switch (command) {
    case 'create':
      return create(rest, store, io);
    case 'list': {
      if (rest.length) throw new UsageError('list takes no arguments');
      const s = await store();
      for (const line of listLines(await s.tokens.list(), await s.users.list())) io.out(line);
      return;
    }
    case 'revoke': {
      if (rest.length !== 1 || !rest[0]) throw new UsageError('revoke needs exactly one token ID (see: npm run token -- list)');
      const id = rest[0];
      const s = await store();
      const known = await s.tokens.findById(id);
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
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs the CLI and returns its exit code; the store is opened only for commands that need it. */
export function tokenCli(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return runAdminCommand('token', USAGE, run, args, env, io);
}

if (invokedDirectly(import.meta.url)) process.exitCode = await tokenCli(process.argv.slice(2), process.env, processIo);
