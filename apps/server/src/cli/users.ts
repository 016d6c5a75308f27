/**
 * People administration for operators, against the same store the server uses
 * (SWITCHBOARD_DATA_DIR, default ./data, or SWITCHBOARD_DATABASE_URL). A change applies to the
 * person's next request on every server (their tokens are re-read).
 *
 *   npm run users -- list                                  id, name, role, email, state, last seen, tokens
 *   npm run users -- create NAME --role ROLE [--email E]   adds a person (then: npm run token -- create NAME --user ID)
 *   npm run users -- role USER_ID ROLE                     sets a person's role
 *   npm run users -- disable USER_ID                       refuses their tokens and sign-ins until enabled
 *   npm run users -- enable USER_ID
 *
 * Exit codes: 0 done, 1 the request could not be carried out (unknown id, the last admin),
 * 2 usage or configuration error.
 */
import { ROLES, isRole, roleScopes, userCreate, type Role } from '@switchboard/contract';
import { LastAdminError, type Store, type TokenRecord, type UserChanges, type UserRecord } from '@switchboard/store';
import { CommandError, UsageError, invokedDirectly, parseOptions, processIo, runAdminCommand, table, type Io } from './admin-command';
import { cliAudit, osUser } from './cli-audit';

const USAGE = `Usage: npm run users -- <command>

Commands:
  list                                  list people: id, name, role, email, state, last seen, active tokens
  create NAME --role ROLE [--email E]   add a person; give them a token with
                                        npm run token -- create NAME --user USER_ID
  role USER_ID ROLE                     set a person's role
  disable USER_ID                       refuse the person's tokens and sign-ins
  enable USER_ID                        let a disabled person in again (tokens not revoked work again)

Roles (each includes the one before):
${ROLES.map((r) => `  ${r.padEnd(9)} ${roleScopes[r].join(', ')}`).join('\n')}
The store is the one in SWITCHBOARD_DATA_DIR (default ./data), or SWITCHBOARD_DATABASE_URL.`;

function roleArgument(value: string | undefined): Role {
  if (value === undefined) throw new UsageError('a ROLE is required');
  if (!isRole(value)) throw new UsageError(`unknown role "${value}"; roles are: ${ROLES.join(', ')}`);
  return value;
}

function listLines(users: UserRecord[], tokens: TokenRecord[]): string[] {
  if (users.length === 0) return ['No people yet. Add one with: npm run users -- create NAME --role ROLE'];
  const rows = [['ID', 'NAME', 'ROLE', 'EMAIL', 'STATE', 'LAST SEEN', 'TOKENS', 'CREATED']];
  for (const u of users) {
    const active = tokens.filter((t) => t.user_id === u.id && !t.revoked_at).length;
    rows.push([u.id, u.display_name, u.role, u.email ?? '-', u.disabled ? 'disabled' : 'enabled', u.last_seen_at ?? 'never', String(active), u.created_at]);
  }
  return table(rows);
}

async function create(args: string[], store: () => Promise<Store>, io: Io): Promise<void> {
  const { words, options } = parseOptions(args, ['role', 'email']);
  const name = words.join(' ').trim();
  if (!name) throw new UsageError('create needs a NAME, for example: npm run users -- create "Ana Silva" --role reviewer');
  const role = roleArgument(options.get('role'));
  // The same rules as user.create over the API.
  const checked = userCreate.params.safeParse({ display_name: name, role, ...(options.has('email') ? { email: options.get('email') } : {}) });
  if (!checked.success) throw new UsageError(checked.error.issues.map((i) => `${i.path.join('.') === 'display_name' ? 'NAME' : `--${String(i.path[0])}`}: ${i.message}`).join('; '));
  const s = await store();
  const user = await s.transaction(async (tx) => {
    const created = await s.users.create({ display_name: checked.data.display_name, email: checked.data.email ?? null, role }, tx);
    await cliAudit(s).record({ channel: 'cli', method: 'cli.users.create', params: { display_name: created.display_name, role, os_user: osUser() }, result: { user_id: created.id }, outcome: 'ok' }, tx);
    return created;
  });
  io.out(`Created user ${user.id} "${user.display_name}" (${user.role}).`);
  io.out(`Give them a token with: npm run token -- create NAME --user ${user.id}`);
}

async function change(s: Store, id: string, changes: UserChanges): Promise<UserRecord> {
  try {
    const user = await s.transaction(async (tx) => {
      const updated = await s.users.update(id, changes, tx);
      if (updated) await cliAudit(s).record({ channel: 'cli', method: 'cli.users.update', params: { user_id: id, ...changes, os_user: osUser() }, outcome: 'ok' }, tx);
      return updated;
    });
    if (!user) throw new CommandError(`No user with id "${id}". See the ids with: npm run users -- list`);
    return user;
  } catch (err) {
    if (err instanceof LastAdminError) throw new CommandError(err.message);
    throw err;
  }
}

function exactlyOneId(command: string, rest: string[], extra = ''): string {
  if (rest.length !== 1 || !rest[0]) throw new UsageError(`${command} needs exactly one USER_ID${extra} (see: npm run users -- list)`);
  return rest[0];
}

async function run(args: string[], store: () => Promise<Store>, io: Io): Promise<void> {
  const [command, ...rest] = args;
  switch (command) {
    case 'list': {
      if (rest.length) throw new UsageError('list takes no arguments');
      const s = await store();
      for (const line of listLines(await s.users.list(), await s.tokens.list())) io.out(line);
      return;
    }
    case 'create':
      return create(rest, store, io);
    case 'role': {
      if (rest.length !== 2 || !rest[0]) throw new UsageError('role needs a USER_ID and a ROLE, for example: npm run users -- role usr_1a2b operator');
      const role = roleArgument(rest[1]);
      const user = await change(await store(), rest[0], { role });
      io.out(`${user.display_name} (${user.id}) is now ${user.role}; this applies to their next request.`);
      return;
    }
    case 'disable': {
      const user = await change(await store(), exactlyOneId('disable', rest), { disabled: true });
      io.out(`Disabled ${user.display_name} (${user.id}): their tokens and sign-ins are refused from their next request;`);
      io.out('WebSocket streams opened earlier stay open until they disconnect.');
      return;
    }
    case 'enable': {
      const user = await change(await store(), exactlyOneId('enable', rest), { disabled: false });
      io.out(`Enabled ${user.display_name} (${user.id}) as ${user.role}; their tokens that were not revoked work again.`);
      return;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs the CLI and returns its exit code; the store is opened only for commands that need it. */
export function usersCli(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  return runAdminCommand('users', USAGE, run, args, env, io);
}

if (invokedDirectly(import.meta.url)) process.exitCode = await usersCli(process.argv.slice(2), process.env, processIo);
