/**
 * Where notices go: Standard Webhooks endpoints and Slack incoming webhooks. A webhook's signing
 * secret is shown once, right after it is added, in a dialog that closes only when the operator
 * says it is stored; the console keeps no copy. "Send test notice" goes through the same durable
 * path as real notices and then shows in the history.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  useAlertDestinations,
  useCreateDestination,
  useDeleteDestination,
  useSendTestNotice,
  type AlertDestination,
  type AlertNotice,
  type CreatedDestination,
} from '../../api/alerts';
import { ApiError } from '../../api/client';
import { paths } from '../../paths';
import { CopyButton } from '../../ui/CopyButton';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { GuardedButton } from '../../ui/GuardedButton';
import { LoadingState } from '../../ui/LoadingState';
import { Modal, newIdempotencyKey, useDialogKey } from '../../ui/Modal';
import { RefreshButton } from '../../ui/RefreshButton';
import { RelativeTime } from '../../ui/RelativeTime';
import { ConfirmActions } from '../../ui/ConfirmActions';

export function DestinationsSection() {
  const destinations = useAlertDestinations();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<AlertDestination | null>(null);

  return (
    <section className="panel" aria-labelledby="destinations-title">
      <div className="alerts-panel-header">
        <h2 id="destinations-title">Destinations</h2>
        <RefreshButton query={destinations} />
        <GuardedButton action="alert.destination_create" className="btn btn-small btn-primary" onClick={() => setAdding(true)} data-testid="add-destination">
          Add a destination…
        </GuardedButton>
      </div>
      {destinations.isPending ? (
        <LoadingState label="Loading destinations" />
      ) : destinations.isError && destinations.data === undefined ? (
        <ErrorState error={destinations.error} onRetry={() => void destinations.refetch()} />
      ) : destinations.data.items.length === 0 ? (
        <EmptyState title="No destinations yet">
          <p>Add a webhook (signed per Standard Webhooks) or a Slack incoming webhook; rules then send their notices there.</p>
        </EmptyState>
      ) : (
        <ul className="card-list" aria-label="Destinations">
          {destinations.data.items.map((d) => (
            <DestinationCard key={d.id} destination={d} onDelete={() => setDeleting(d)} />
          ))}
        </ul>
      )}
      <AddDestinationDialog open={adding} onClose={() => setAdding(false)} />
      <DeleteDestinationDialog destination={deleting} onClose={() => setDeleting(null)} />
    </section>
  );
}

function DestinationCard({ destination: d, onDelete }: { destination: AlertDestination; onDelete: () => void }) {
  const test = useSendTestNotice();
  const [sent, setSent] = useState<AlertNotice | null>(null);
  const send = () => {
    setSent(null);
    test.mutate({ destination_id: d.id, idempotency_key: newIdempotencyKey() }, { onSuccess: (r) => setSent(r.notice) });
  };
  return (
    <li className="card alert-card" data-testid="destination-row" data-destination-id={d.id}>
      <div className="alert-card-head">
        <strong className="alert-card-name">{d.name}</strong>
        <span className="badge badge-neutral">{d.kind === 'slack' ? 'Slack' : 'webhook'}</span>
      </div>
      <p className="alert-card-line mono small destination-url" data-testid="destination-url">
        {d.url}
      </p>
      <p className="alert-card-line small muted">
        Added <RelativeTime iso={d.created_at} />
        {d.created_by ? ` by ${d.created_by}` : ''}
      </p>
      {test.error && <ErrorState compact error={test.error} />}
      {sent && (
        <p className="callout callout-ok small" role="status" data-testid="test-notice-sent" data-notice-id={sent.id}>
          Test notice queued ({sent.id}).{' '}
          <Link to={paths.alerts('history', { destination: d.id })} data-testid="test-notice-history">
            See it in the history
          </Link>
        </p>
      )}
      <div className="alert-card-actions">
        <GuardedButton action="alert.test" className="btn btn-small" disabled={test.isPending} onClick={send} data-testid="send-test-notice">
          {test.isPending ? 'Sending…' : 'Send test notice'}
          <span className="visually-hidden"> to {d.name}</span>
        </GuardedButton>
        <Link className="btn btn-small btn-quiet" to={paths.alerts('history', { destination: d.id })}>
          Notices<span className="visually-hidden"> to {d.name}</span>
        </Link>
        <GuardedButton action="alert.destination_delete" className="btn btn-small btn-danger-outline" onClick={onDelete} data-testid="delete-destination">
          Delete…<span className="visually-hidden"> {d.name}</span>
        </GuardedButton>
      </div>
    </li>
  );
}

function AddDestinationDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [created, setCreated] = useState<CreatedDestination | null>(null);
  // A webhook's secret lives only in this dialog's state: closing it forgets it.
  const close = () => {
    setCreated(null);
    onClose();
  };
  const secretStep = created?.destination.kind === 'webhook';
  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && close()}
      title={secretStep ? 'Copy the signing secret now' : created ? 'Destination added' : 'Add a destination'}
      testId="destination-dialog"
    >
      {created ? <Created created={created} onDone={close} /> : open && <DestinationForm onCreated={setCreated} onCancel={close} />}
    </Modal>
  );
}

function DestinationForm({ onCreated, onCancel }: { onCreated: (c: CreatedDestination) => void; onCancel: () => void }) {
  const ids = { kind: useId(), name: useId(), url: useId() };
  const { key } = useDialogKey(true);
  const create = useCreateDestination();
  const [kind, setKind] = useState<'webhook' | 'slack'>('webhook');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [tried, setTried] = useState(false);
  const problem = !name.trim() ? 'Give the destination a name.' : !/^https?:\/\/\S+$/i.test(url.trim()) ? 'The URL starts with https:// (or http://).' : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problem) return;
    create.mutate({ kind, name: name.trim(), url: url.trim(), idempotency_key: key }, { onSuccess: onCreated });
  };
  return (
    <form className="destination-form" onSubmit={submit} noValidate>
      <fieldset className="choice-group">
        <legend className="field-label">Kind</legend>
        <label>
          <input type="radio" name={ids.kind} checked={kind === 'webhook'} onChange={() => setKind('webhook')} data-testid="destination-kind-webhook" /> Webhook (Standard
          Webhooks, signed)
        </label>
        <label>
          <input type="radio" name={ids.kind} checked={kind === 'slack'} onChange={() => setKind('slack')} data-testid="destination-kind-slack" /> Slack incoming webhook
        </label>
      </fieldset>
      <div className="field field-wide">
        <label htmlFor={ids.name}>Name</label>
        <input id={ids.name} type="text" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} autoFocus placeholder="on-call, #ops…" data-testid="destination-name" />
      </div>
      <div className="field field-wide">
        <label htmlFor={ids.url}>URL</label>
        <input
          id={ids.url}
          type="url"
          maxLength={2000}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          spellCheck={false}
          placeholder={kind === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://example.com/hooks/switchboard'}
          data-testid="destination-url-input"
        />
        <span className="muted small">
          {kind === 'slack'
            ? 'The Slack URL is itself the secret: after this, it is shown with its path hidden.'
            : 'Notices are POSTed as JSON with webhook-id, webhook-timestamp and webhook-signature headers; the signing secret is shown once, next.'}
        </span>
      </div>
      {tried && problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {create.error && <ErrorState compact error={create.error} />}
      <div className="modal-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={create.isPending}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={create.isPending} data-testid="save-destination">
          {create.isPending ? 'Adding…' : 'Add destination'}
        </button>
      </div>
    </form>
  );
}

/** A webhook's secret, this once; a Slack destination has none of its own. */
function Created({ created, onDone }: { created: CreatedDestination; onDone: () => void }) {
  const { destination, secret } = created;
  if (destination.kind === 'slack') {
    return (
      <div className="secret-once">
        <p>
          <strong>{destination.name}</strong> was added. From now on its URL is shown as <code className="small">{destination.url}</code>.
        </p>
        <div className="modal-actions">
          <button type="button" className="btn btn-primary" onClick={onDone} data-testid="destination-done">
            Done
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="secret-once">
      <p>
        <strong>{destination.name}</strong> was added. Receivers verify each notice with this signing secret (Standard Webhooks).{' '}
        <strong>You will not see this secret again:</strong> store it with the receiver before closing.
      </p>
      {secret ? (
        <p className="secret-row">
          <code className="secret" data-testid="destination-secret">
            {secret}
          </code>{' '}
          <CopyButton text={() => secret} ariaLabel="Copy the signing secret" />
        </p>
      ) : (
        <p className="callout callout-bad" role="alert">
          The server did not return the secret (this request was a replay). Delete this destination and add it again to get a new secret.
        </p>
      )}
      <div className="modal-actions">
        <button type="button" className="btn btn-primary" onClick={onDone} data-testid="secret-stored">
          I have stored it
        </button>
      </div>
    </div>
  );
}

function DeleteDestinationDialog({ destination, onClose }: { destination: AlertDestination | null; onClose: () => void }) {
  const open = destination !== null;
  const { key } = useDialogKey(open);
  const remove = useDeleteDestination();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    remove.reset();
    onClose();
  };
  const inUseBy = rulesUsing(remove.error);
  return (
    <Modal open={open} onOpenChange={(o) => !o && close()} title="Delete this destination?" tone="danger" testId="delete-destination-dialog" initialFocus={cancelRef}>
      {destination && (
        <>
          <p>
            <strong>{destination.name}</strong> receives no more notices; notices still waiting to be sent to it are cancelled. A destination that rules still send to cannot
            be deleted.
          </p>
          {remove.error && <ErrorState compact error={remove.error} />}
          {inUseBy && (
            <p>
              Used by {inUseBy.length > 0 ? inUseBy.join(', ') : 'some rules'}.{' '}
              <Link to={paths.alerts('rules')} onClick={close}>
                Open the rules
              </Link>
            </p>
          )}
          <ConfirmActions
            onKeep={close}
            keepRef={cancelRef}
            pending={remove.isPending}
            onConfirm={() => remove.mutate({ destination_id: destination.id, idempotency_key: key }, { onSuccess: close })}
            label="Delete destination"
            pendingLabel="Deleting…"
            testId="confirm-delete-destination"
          />
        </>
      )}
    </Modal>
  );
}

/** The names of the rules a DESTINATION_IN_USE refusal lists (its details carry them), else undefined. */
function rulesUsing(error: unknown): string[] | undefined {
  if (!(error instanceof ApiError) || error.code !== 'DESTINATION_IN_USE') return undefined;
  const rules = error.details.rules;
  return Array.isArray(rules) ? rules.filter((r): r is string => typeof r === 'string') : [];
}
