/**
 * Tokens on the Admin screen: the list (never a secret, only its first characters), revoking one
 * after a confirmation, and creating one, optionally narrowed to some of its person's scopes.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { roleScopes, scopeDescriptions, type Scope } from '@switchboard/contract/roles';
import { useCreateToken, useRevokeToken, type CreatedToken, type TokenRecord, type UserRecord } from '../../api/people';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorState } from '../../ui/ErrorState';
import { Modal, useDialogKey } from '../../ui/Modal';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { ConfirmActions } from '../../ui/ConfirmActions';

export function TokensTable({ tokens, people, onOwner }: { tokens: TokenRecord[]; people: UserRecord[]; onOwner: (userId: string) => void }) {
  const [revoking, setRevoking] = useState<TokenRecord | null>(null);
  const nameOf = (userId: string) => people.find((u) => u.id === userId)?.display_name;
  return (
    <>
      <div className="table-scroll">
        <table className="data admin-table" data-testid="tokens-table">
          <thead>
            <tr>
              <th scope="col">Token</th>
              <th scope="col">Person</th>
              <th scope="col" className="hide-narrow">
                Scopes
              </th>
              <th scope="col" className="hide-narrow">
                Last used
              </th>
              <th scope="col" className="col-status">
                Status
              </th>
              <th scope="col" className="col-actions">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id} data-testid="token-row" data-token-id={t.id}>
                <td title={`${t.name} (${t.id}), secret starts ${t.prefix}…, created ${t.created_at}`}>
                  {t.name} <code className="muted small">{t.prefix}…</code>
                </td>
                <td>
                  <button type="button" className="link-button" onClick={() => onOwner(t.user_id)} title={`Only ${nameOf(t.user_id) ?? t.user_id}’s tokens`}>
                    {nameOf(t.user_id) ?? t.user_id}
                  </button>
                </td>
                <td className="hide-narrow small" title={t.scopes?.join(', ') ?? 'every scope of the person’s role'}>
                  {t.scopes ? t.scopes.join(', ') : <span className="muted">role’s scopes</span>}
                </td>
                <td className="hide-narrow">{t.last_used_at ? <RelativeTime iso={t.last_used_at} /> : <span className="muted">never</span>}</td>
                <td>
                  {t.revoked_at ? (
                    <span title={`revoked ${t.revoked_at}`}>
                      <StatusBadge value="revoked" tone="bad" />
                    </span>
                  ) : (
                    <StatusBadge value="active" tone="ok" />
                  )}
                </td>
                <td className="row-actions">
                  {!t.revoked_at && (
                    <button type="button" className="btn btn-small btn-danger-outline" onClick={() => setRevoking(t)} data-testid="revoke-token">
                      Revoke…<span className="visually-hidden"> {t.name}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <RevokeTokenDialog token={revoking} ownerName={revoking ? nameOf(revoking.user_id) : undefined} onClose={() => setRevoking(null)} />
    </>
  );
}

function RevokeTokenDialog({ token, ownerName, onClose }: { token: TokenRecord | null; ownerName: string | undefined; onClose: () => void }) {
  const open = token !== null;
  const { key } = useDialogKey(open);
  const revoke = useRevokeToken();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    revoke.reset();
    onClose();
  };
  return (
    <Modal open={open} onOpenChange={(o) => !o && close()} title="Revoke this token?" tone="danger" testId="revoke-token-dialog" initialFocus={cancelRef}>
      {token && (
        <>
          <p>
            <strong>{token.name}</strong> ({ownerName ?? token.user_id}) stops working on its next request, on every node, and its browser sessions end.
            This cannot be undone; create a new token instead.
          </p>
          {revoke.error && <ErrorState compact error={revoke.error} />}
          <ConfirmActions
            onKeep={close}
            keepRef={cancelRef}
            pending={revoke.isPending}
            onConfirm={() => revoke.mutate({ token_id: token.id, idempotency_key: key }, { onSuccess: close })}
            label="Revoke token"
            pendingLabel="Revoking…"
            testId="confirm-revoke"
          />
        </>
      )}
    </Modal>
  );
}

export function CreateTokenDialog({
  open,
  onOpenChange,
  people,
  defaultUserId,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  people: UserRecord[];
  defaultUserId: string | undefined;
}) {
  const [created, setCreated] = useState<CreatedToken | null>(null);
  // The secret lives only in this dialog's state: closing it forgets it.
  const close = () => {
    setCreated(null);
    onOpenChange(false);
  };
  return (
    <Modal
      open={open}
      onOpenChange={(o) => {
        if (!o) close();
      }}
      title={created ? 'Copy the secret now' : 'Create a token'}
      testId="create-token-dialog"
    >
      {created ? <SecretOnce created={created} onStored={close} /> : open && <CreateTokenForm people={people} defaultUserId={defaultUserId} onCreated={setCreated} onCancel={close} />}
    </Modal>
  );
}

function CreateTokenForm({
  people,
  defaultUserId,
  onCreated,
  onCancel,
}: {
  people: UserRecord[];
  defaultUserId: string | undefined;
  onCreated: (created: CreatedToken) => void;
  onCancel: () => void;
}) {
  const ids = { user: useId(), name: useId(), narrow: useId() };
  const { key } = useDialogKey(true);
  const create = useCreateToken();
  const [userId, setUserId] = useState(defaultUserId ?? people[0]?.id ?? '');
  const [name, setName] = useState('');
  const [narrowed, setNarrowed] = useState(false);
  const [picked, setPicked] = useState<Set<Scope>>(new Set());
  const nameRef = useRef<HTMLInputElement>(null);
  const person = people.find((u) => u.id === userId);
  const available = person ? roleScopes[person.role] : [];
  const chosen = available.filter((s) => picked.has(s));
  const valid = Boolean(person && name.trim() && (!narrowed || chosen.length > 0));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    create.mutate(
      { user_id: userId, name: name.trim(), ...(narrowed ? { scopes: chosen } : {}), idempotency_key: key },
      { onSuccess: (r) => onCreated(r) },
    );
  };
  const toggle = (s: Scope) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (next.has(s)) next.delete(s);
      else next.add(s);
      return next;
    });

  return (
    <form onSubmit={submit} className="token-form">
      <div className="field-wide">
        <label htmlFor={ids.user}>For</label>
        <select id={ids.user} value={userId} onChange={(e) => setUserId(e.target.value)} data-testid="token-user">
          {people.map((u) => (
            <option key={u.id} value={u.id}>
              {u.display_name} ({u.role})
            </option>
          ))}
        </select>
      </div>
      <div className="field-wide">
        <label htmlFor={ids.name}>Token name</label>
        <input id={ids.name} ref={nameRef} type="text" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop, ci-publisher…" autoFocus data-testid="token-name" />
      </div>
      <div className="field-inline">
        <input id={ids.narrow} type="checkbox" checked={narrowed} onChange={(e) => setNarrowed(e.target.checked)} data-testid="token-narrow" />
        <label htmlFor={ids.narrow}>Narrow to some of {person ? `${person.display_name}’s` : 'the person’s'} scopes</label>
      </div>
      {narrowed && (
        <fieldset className="scope-picks">
          <legend className="small muted">Scopes this token may use (within the {person?.role ?? ''} role)</legend>
          {available.map((s) => (
            <label key={s} className="scope-pick">
              <input type="checkbox" checked={picked.has(s)} onChange={() => toggle(s)} /> <code>{s}</code> <span className="muted small">{scopeDescriptions[s]}</span>
            </label>
          ))}
          {chosen.length === 0 && <p className="field-error">Pick at least one scope, or untick “Narrow”.</p>}
        </fieldset>
      )}
      {create.error && <ErrorState compact error={create.error} />}
      <div className="modal-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={create.isPending}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={!valid || create.isPending} data-testid="confirm-create-token">
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

/** The secret, this once: the server cannot show it again, and the console keeps no copy. */
function SecretOnce({ created, onStored }: { created: CreatedToken; onStored: () => void }) {
  const storedRef = useRef<HTMLButtonElement>(null);
  return (
    <div className="secret-once">
      <p>
        <strong>{created.token.name}</strong> was created. This is the only time its secret is shown: store it somewhere safe (a password manager, your CI’s
        secrets) before closing.
      </p>
      {created.secret ? (
        <p className="secret-row">
          <code className="secret" data-testid="token-secret">
            {created.secret}
          </code>{' '}
          <CopyButton text={() => created.secret!} ariaLabel="Copy the secret" />
        </p>
      ) : (
        <p className="callout callout-bad" role="alert">
          The server did not return a secret (this request was a replay). Revoke this token and create a new one.
        </p>
      )}
      <div className="modal-actions">
        <button type="button" className="btn btn-primary" onClick={onStored} ref={storedRef} data-testid="secret-stored">
          I have stored it
        </button>
      </div>
    </div>
  );
}
