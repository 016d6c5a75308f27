/**
 * Administration (the users:admin scope): the people who use this runtime with their role, and
 * the tokens that act for them. A new token's secret is shown once, in a dialog that closes only
 * when the admin says it is stored; the console keeps no copy afterwards.
 */
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ROLES, type Role } from '@switchboard/contract/roles';
import { useCan } from '../../api/access';
import { useSession } from '../../api/session';
import { useCreateUser, useTokens, useUpdateUser, useUsers, type UserRecord } from '../../api/people';
import { ErrorState } from '../../ui/ErrorState';
import { EmptyState } from '../../ui/EmptyState';
import { LoadingState } from '../../ui/LoadingState';
import { newIdempotencyKey } from '../../ui/Modal';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { useUrlState, withParams } from '../../url-state';
import { CreateTokenDialog, TokensTable } from './TokensSection';
import './AdminScreen.css';

export default function AdminScreen() {
  const can = useCan('users:admin');
  if (!can.allowed) {
    return (
      <section className="screen screen-page" aria-labelledby="admin-title">
        <h1 id="admin-title">Admin</h1>
        <EmptyState title={`This screen ${can.reason}`}>People and tokens are managed by admins.</EmptyState>
      </section>
    );
  }
  return <AdminPage />;
}

function AdminPage() {
  const [params, update] = useUrlState();
  const users = useUsers();
  const tokenOwner = params.get('user') ?? undefined;
  const [creating, setCreating] = useState(false);
  const people = users.data?.items ?? [];
  const owner = people.find((u) => u.id === tokenOwner);

  return (
    <section className="screen screen-page" aria-labelledby="admin-title">
      <div className="screen-header">
        <h1 id="admin-title">Admin</h1>
        <span className="muted">People, their roles and their tokens</span>
      </div>

      <section className="panel" aria-labelledby="people-title">
        <h2 id="people-title">People</h2>
        {users.isPending ? (
          <LoadingState label="Loading people" />
        ) : users.isError ? (
          <ErrorState error={users.error} onRetry={() => void users.refetch()} />
        ) : people.length === 0 ? (
          <EmptyState title="No people yet" />
        ) : (
          <UsersTable users={people} tokenLink={(id) => withParams(params, { user: id })} />
        )}
        <CreateUserForm />
      </section>

      <section className="panel" aria-labelledby="tokens-title" id="tokens">
        <div className="panel-header">
          <h2 id="tokens-title">Tokens{owner ? ` of ${owner.display_name}` : ''}</h2>
          {tokenOwner && (
            <Link to={withParams(params, { user: null })} className="btn btn-small btn-quiet">
              Show everyone’s tokens
            </Link>
          )}
          <button type="button" className="btn btn-small btn-primary" onClick={() => setCreating(true)} disabled={people.length === 0} data-testid="create-token">
            Create a token…
          </button>
        </div>
        <TokensForOwner ownerId={tokenOwner} people={people} onOwner={(id) => update({ user: id })} />
      </section>

      <CreateTokenDialog open={creating} onOpenChange={setCreating} people={people.filter((u) => !u.disabled)} defaultUserId={owner && !owner.disabled ? owner.id : undefined} />
    </section>
  );
}

function TokensForOwner({ ownerId, people, onOwner }: { ownerId: string | undefined; people: UserRecord[]; onOwner: (id: string) => void }) {
  const tokens = useTokens(ownerId);
  if (tokens.isPending) return <LoadingState label="Loading tokens" />;
  if (tokens.isError) return <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />;
  if (tokens.data.items.length === 0) return <EmptyState title="No tokens">Create one for a person; its secret is shown once.</EmptyState>;
  return <TokensTable tokens={tokens.data.items} people={people} onOwner={onOwner} />;
}

function UsersTable({ users, tokenLink }: { users: UserRecord[]; tokenLink: (userId: string) => string }) {
  const session = useSession();
  const update = useUpdateUser();
  const [pendingFor, setPendingFor] = useState<string | null>(null);
  const change = (user: UserRecord, changes: { role?: Role; disabled?: boolean }) => {
    setPendingFor(user.id);
    update.mutate({ user_id: user.id, ...changes, idempotency_key: newIdempotencyKey() }, { onSettled: () => setPendingFor(null) });
  };
  return (
    <>
      {update.error && <ErrorState compact error={update.error} />}
      <div className="table-scroll">
        <table className="data admin-table" data-testid="users-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="hide-narrow">
                Email
              </th>
              <th scope="col" className="col-role">
                Role
              </th>
              <th scope="col" className="hide-narrow">
                Last seen
              </th>
              <th scope="col" className="col-status hide-narrow">
                Status
              </th>
              <th scope="col" className="col-actions">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => {
              const self = session.data?.user.id === u.id;
              const busy = pendingFor === u.id && update.isPending;
              return (
                <tr key={u.id} data-testid="user-row" data-user-id={u.id}>
                  <td title={`${u.display_name} (${u.id})${u.sign_in === 'oidc' ? ', signs in with OpenID Connect' : ''}`}>
                    <span className="user-name">{u.display_name}</span>
                    {self && <span className="muted small"> (you)</span>}
                  </td>
                  <td className="hide-narrow">{u.email ?? <span className="muted">—</span>}</td>
                  <td>
                    <label className="visually-hidden" htmlFor={`role-${u.id}`}>
                      Role of {u.display_name}
                    </label>
                    <select id={`role-${u.id}`} value={u.role} disabled={busy} onChange={(e) => change(u, { role: e.target.value as Role })} data-testid="user-role">
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td className="hide-narrow">{u.last_seen_at ? <RelativeTime iso={u.last_seen_at} /> : <span className="muted">never</span>}</td>
                  <td className="hide-narrow">{u.disabled ? <StatusBadge value="disabled" tone="bad" /> : <StatusBadge value="enabled" tone="ok" />}</td>
                  <td className="row-actions">
                    <button type="button" className="btn btn-small" disabled={busy} onClick={() => change(u, { disabled: !u.disabled })} data-testid="toggle-user">
                      {u.disabled ? 'Enable' : 'Disable'}
                      <span className="visually-hidden"> {u.display_name}</span>
                    </button>
                    <Link className="btn btn-small btn-quiet" to={`${tokenLink(u.id)}#tokens`}>
                      Tokens<span className="visually-hidden"> of {u.display_name}</span>
                    </Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function CreateUserForm() {
  const create = useCreateUser();
  const ids = { name: useId(), email: useId(), role: useId() };
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [created, setCreated] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    create.mutate(
      { display_name: name.trim(), ...(email.trim() ? { email: email.trim() } : {}), role, idempotency_key: newIdempotencyKey() },
      {
        onSuccess: (r) => {
          setCreated(`${r.user.display_name} was added as ${r.user.role}. Create a token for them below, or let them sign in with OpenID Connect.`);
          setName('');
          setEmail('');
        },
      },
    );
  };
  return (
    <form className="admin-form" onSubmit={submit} aria-label="Add a person">
      <h3>Add a person</h3>
      <div className="admin-form-fields">
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input id={ids.name} type="text" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} required data-testid="new-user-name" />
        </div>
        <div className="field">
          <label htmlFor={ids.email}>Email (optional)</label>
          <input id={ids.email} type="email" maxLength={320} value={email} onChange={(e) => setEmail(e.target.value)} data-testid="new-user-email" />
        </div>
        <div className="field">
          <label htmlFor={ids.role}>Role</label>
          <select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="new-user-role">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()} data-testid="add-user">
          {create.isPending ? 'Adding…' : 'Add person'}
        </button>
      </div>
      {create.error && <ErrorState compact error={create.error} />}
      {created && !create.error && (
        <p className="callout callout-ok" role="status">
          {created}
        </p>
      )}
    </form>
  );
}
