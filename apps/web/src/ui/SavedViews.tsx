/**
 * Saved views on a list's filter bar: "Save view…" keeps the current filters under a name
 * (private, or shared with everyone), and "Views" lists mine and the ones others shared, with who
 * made them. Opening a view puts its filters in the URL with `saved_view=<id>`, so a reload or a
 * pasted link opens the same list; a link holding only `?saved_view=<id>` loads that view's
 * filters as they are now. My views (and, for an admin, shared ones) can be renamed, shared or
 * unshared, updated with the current filters, and deleted from the menu.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { MAX_SAVED_VIEW_NAME_LENGTH } from '@switchboard/contract/limits';
import { useCan } from '../api/access';
import { explainError } from '../api/error-messages';
import { useCreateView, useDeleteView, useSavedViews, useUpdateView, type SavedView, type SavedViewList } from '../api/views';
import { useUrlState } from '../url-state';
import { ConfirmActions } from './ConfirmActions';
import { CopyButton } from './CopyButton';
import { ErrorState } from './ErrorState';
import { LoadingState } from './LoadingState';
import { Modal, newIdempotencyKey, useDialogKey } from './Modal';
import { LIST_SCREENS, SAVED_VIEW_PARAM, filtersOf, sameFilters, searchOf } from './saved-view-filters';
import './SavedViews.css';

type Dialog = { kind: 'save' } | { kind: 'edit'; view: SavedView } | { kind: 'delete'; view: SavedView } | null;

export function SavedViews({ list }: { list: SavedViewList }) {
  const [params, update] = useUrlState();
  const navigate = useNavigate();
  const views = useSavedViews(list);
  const screen = LIST_SCREENS[list];
  const current = filtersOf(params, list);
  const activeId = params.get(SAVED_VIEW_PARAM);
  const active = activeId ? views.data?.items.find((v) => v.id === activeId) : undefined;
  const changed = active !== undefined && !sameFilters(active.filters, current);
  const admin = useCan('users:admin').allowed;
  const [open, setOpen] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  // A link with only `?saved_view=<id>` (no filters of its own) opens the view's filters as they are
  // now; once. A link that carries filters keeps them: they are what its sender was looking at.
  const openedFromLink = useRef<string | null>(null);
  const hasOwnFilters = Object.keys(current).length > 0;
  useEffect(() => {
    if (!active || openedFromLink.current === active.id) return;
    openedFromLink.current = active.id;
    if (!hasOwnFilters && Object.keys(active.filters).length > 0) navigate({ search: searchOf(active.filters, active.id) }, { replace: true });
  }, [active, hasOwnFilters, navigate]);

  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };
  const mayChange = (v: SavedView) => v.mine || (v.shared && admin);
  const mine = views.data?.items.filter((v) => v.mine) ?? [];
  const others = views.data?.items.filter((v) => !v.mine) ?? [];
  const linkTo = (v: SavedView) => ({ pathname: screen.path, search: searchOf(v.filters, v.id) });

  const row = (v: SavedView) => (
    <li key={v.id} className={`saved-view${v.id === activeId ? ' is-active' : ''}`} data-testid="saved-view" data-view-id={v.id}>
      <Link className="saved-view-open" to={linkTo(v)} onClick={() => setOpen(false)} aria-current={v.id === activeId ? 'true' : undefined}>
        <span className="saved-view-name">{v.name}</span>
        <span className="saved-view-meta muted small">{v.mine ? (v.shared ? 'shared' : 'private') : `by ${v.owner_name}`}</span>
      </Link>
      <span className="saved-view-actions">
        <CopyButton text={() => `${window.location.origin}${screen.path}?${SAVED_VIEW_PARAM}=${encodeURIComponent(v.id)}`} label="Copy link" ariaLabel={`Copy a link to ${v.name}`} />
        {mayChange(v) && (
          <>
            <button type="button" className="btn btn-small btn-quiet" onClick={() => setDialog({ kind: 'edit', view: v })} aria-label={`Rename or share ${v.name}`} data-testid="edit-view">
              Edit…
            </button>
            <button type="button" className="btn btn-small btn-quiet" onClick={() => setDialog({ kind: 'delete', view: v })} aria-label={`Delete ${v.name}`} data-testid="delete-view">
              Delete…
            </button>
          </>
        )}
      </span>
    </li>
  );

  return (
    <div
      className="saved-views"
      onBlur={(e) => {
        // The menu belongs to its buttons: it closes once focus leaves them (not into a dialog it opened).
        if (!e.currentTarget.contains(e.relatedTarget as Node | null) && !dialog) setOpen(false);
      }}
      onKeyDown={(e: ReactKeyboardEvent) => {
        if (e.key === 'Escape' && open && !dialog) {
          e.stopPropagation();
          close();
        }
      }}
    >
      <button
        ref={toggleRef}
        type="button"
        className="btn btn-small saved-views-toggle"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => {
          // Views others shared since the list was read appear when the menu opens.
          if (!open && views.isStale) void views.refetch();
          setOpen(!open);
        }}
        title={active ? `Opened from the saved view “${active.name}”${changed ? '; the filters changed since' : ''}` : undefined}
        data-testid="views-toggle"
      >
        <span className="saved-views-label">{active ? `View: ${active.name}` : 'Views'}</span>
        {changed && <span className="muted"> (changed)</span>}
        <span aria-hidden="true"> ▾</span>
      </button>
      <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'save' })} data-testid="save-view">
        Save view…
      </button>
      {activeId && views.isSuccess && !active && (
        <p className="saved-views-missing small" role="status" data-testid="saved-view-missing">
          The saved view of this link no longer exists, or is not shared with you.{' '}
          <button type="button" className="link-button" onClick={() => update({ [SAVED_VIEW_PARAM]: null })}>
            Dismiss
          </button>
        </p>
      )}
      <div id={panelId} className="saved-views-panel" hidden={!open} data-testid="views-menu">
        {views.isPending ? (
          <LoadingState label="Loading saved views" />
        ) : views.isError ? (
          <ErrorState compact error={views.error} onRetry={() => void views.refetch()} />
        ) : mine.length === 0 && others.length === 0 ? (
          <p className="saved-views-empty" role="status">
            No saved views of {screen.label} yet. Set the filters, then choose “Save view…”.
          </p>
        ) : (
          <>
            {active && changed && mayChange(active) && <UpdateWithCurrent view={active} filters={current} />}
            <h2 className="saved-views-heading">My views</h2>
            {mine.length ? <ul className="saved-views-list">{mine.map(row)}</ul> : <p className="muted small">None yet.</p>}
            <h2 className="saved-views-heading">Shared by others</h2>
            {others.length ? <ul className="saved-views-list">{others.map(row)}</ul> : <p className="muted small">Nobody has shared a view of {screen.label}.</p>}
          </>
        )}
      </div>
      <ViewDialog
        dialog={dialog}
        list={list}
        onClose={() => setDialog(null)}
        onSaved={(view) => {
          openedFromLink.current = view.id;
          update({ [SAVED_VIEW_PARAM]: view.id });
        }}
        onDeleted={(id) => {
          if (id === activeId) update({ [SAVED_VIEW_PARAM]: null });
        }}
        filters={current}
      />
    </div>
  );
}

/** The opened view's filters were changed here: its owner may keep the new ones under its name. */
function UpdateWithCurrent({ view, filters }: { view: SavedView; filters: SavedView['filters'] }) {
  const updateView = useUpdateView();
  return (
    <div className="saved-views-update">
      <button type="button" className="btn btn-small" disabled={updateView.isPending} onClick={() => updateView.mutate({ view_id: view.id, filters, idempotency_key: newIdempotencyKey() })} data-testid="update-view-filters">
        {updateView.isPending ? 'Updating…' : `Update “${view.name}” with these filters`}
      </button>
      {updateView.error && <ErrorState compact error={updateView.error} />}
    </div>
  );
}

function ViewDialog({
  dialog,
  list,
  filters,
  onClose,
  onSaved,
  onDeleted,
}: {
  dialog: Dialog;
  list: SavedViewList;
  filters: SavedView['filters'];
  onClose: () => void;
  onSaved: (view: SavedView) => void;
  onDeleted: (id: string) => void;
}) {
  const title = dialog?.kind === 'save' ? `Save a view of ${LIST_SCREENS[list].label}` : dialog?.kind === 'edit' ? `Edit “${dialog.view.name}”` : dialog?.kind === 'delete' ? `Delete “${dialog.view.name}”?` : '';
  return (
    <Modal open={dialog !== null} onOpenChange={(o) => !o && onClose()} title={title} tone={dialog?.kind === 'delete' ? 'danger' : undefined} testId="view-dialog">
      {dialog?.kind === 'delete' ? (
        <DeleteView
          view={dialog.view}
          onDone={() => {
            onDeleted(dialog.view.id);
            onClose();
          }}
          onCancel={onClose}
        />
      ) : dialog ? (
        <ViewForm key={dialog.kind === 'edit' ? dialog.view.id : 'new'} editing={dialog.kind === 'edit' ? dialog.view : undefined} list={list} filters={filters} onDone={(v) => {
            onSaved(v);
            onClose();
          }}
          onCancel={onClose}
        />
      ) : null}
    </Modal>
  );
}

function ViewForm({
  editing,
  list,
  filters,
  onDone,
  onCancel,
}: {
  editing?: SavedView;
  list: SavedViewList;
  filters: SavedView['filters'];
  onDone: (view: SavedView) => void;
  onCancel: () => void;
}) {
  const ids = { name: useId(), shared: useId(), hint: useId() };
  const { key } = useDialogKey(true);
  const create = useCreateView();
  const updateView = useUpdateView();
  const mutation = editing ? updateView : create;
  const [name, setName] = useState(editing?.name ?? '');
  const [shared, setShared] = useState(editing?.shared ?? false);
  const [tried, setTried] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);
  const problem = !name.trim() ? 'Give the view a name.' : undefined;
  const filterCount = Object.keys(filters).length;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // The dialog renders into a portal, but React still bubbles its submit to the filter bar's form.
    e.stopPropagation();
    setTried(true);
    if (problem) return;
    if (editing) updateView.mutate({ view_id: editing.id, name: name.trim(), shared, idempotency_key: key }, { onSuccess: (r) => onDone(r.view) });
    else create.mutate({ list, name: name.trim(), filters, shared, idempotency_key: key }, { onSuccess: (r) => onDone(r.view) });
  };
  const clash = mutation.error && explainError(mutation.error).code === 'INVALID_PARAMS' ? mutation.error.message.replace(/^Invalid params for view\.\w+: /, '') : undefined;

  return (
    <form className="view-form" onSubmit={submit} noValidate>
      {!editing && (
        <p id={ids.hint} className="muted small">
          {filterCount === 0 ? 'No filters are set: the view opens the whole list.' : `Keeps the ${filterCount} filter${filterCount === 1 ? '' : 's'} set now.`}
        </p>
      )}
      {editing && !editing.mine && <p className="callout callout-info small">This view is {editing.owner_name}’s; you change it as an admin.</p>}
      <div className="field field-wide">
        <label htmlFor={ids.name}>Name</label>
        <input ref={nameRef} id={ids.name} type="text" maxLength={MAX_SAVED_VIEW_NAME_LENGTH} value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} autoComplete="off" data-testid="view-name" />
      </div>
      <label className="field-inline">
        <input id={ids.shared} type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} data-testid="view-shared" />
        Share with everyone (they see it with your name)
      </label>
      {tried && problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {clash ? (
        <p className="field-error" role="alert">
          {clash[0]!.toUpperCase() + clash.slice(1)}.
        </p>
      ) : (
        mutation.error && <ErrorState compact error={mutation.error} />
      )}
      <div className="modal-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={mutation.isPending}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={mutation.isPending} data-testid="confirm-view">
          {mutation.isPending ? 'Saving…' : editing ? 'Save changes' : 'Save view'}
        </button>
      </div>
    </form>
  );
}

function DeleteView({ view, onDone, onCancel }: { view: SavedView; onDone: () => void; onCancel: () => void }) {
  const { key } = useDialogKey(true);
  const remove = useDeleteView();
  const keepRef = useRef<HTMLButtonElement>(null);
  useEffect(() => keepRef.current?.focus(), []);
  return (
    <>
      <p>
        {view.shared ? `Nobody will find “${view.name}” any more${view.mine ? '' : `, ${view.owner_name} included`}.` : `“${view.name}” is removed from your views.`} Links to it stop
        opening its filters.
      </p>
      {remove.error && <ErrorState compact error={remove.error} />}
      <ConfirmActions
        onKeep={onCancel}
        keepRef={keepRef}
        onConfirm={() => remove.mutate({ view_id: view.id, idempotency_key: key }, { onSuccess: onDone })}
        pending={remove.isPending}
        label="Delete view"
        pendingLabel="Deleting…"
        testId="confirm-delete-view"
      />
    </>
  );
}
