/**
 * An accessible modal dialog (Radix: focus trapped, Escape closes, focus returns to the opener),
 * and the idempotency key that belongs to one opening of it: every submit from the same opened
 * dialog reuses the key, so a double click or a retried request acts once.
 */
import { useState, type ReactNode, type RefObject } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import './Modal.css';

export function Modal({
  open,
  onOpenChange,
  title,
  description,
  children,
  tone,
  wide,
  testId,
  initialFocus,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  tone?: 'danger';
  wide?: boolean;
  testId?: string;
  /** What takes focus on open (the first field or the primary action); never the close button. */
  initialFocus?: RefObject<HTMLElement | null>;
}) {
  const opener = useOpener(open);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        {/* A plain backdrop, not Dialog.Overlay: that one locks page scroll by injecting a <style>
            element, which the console's CSP (style-src 'self') refuses on every open. The page
            itself never scrolls (screens scroll inside main), so there is nothing to lock; focus
            trapping, outside clicks and Escape stay with Dialog.Content. */}
        <div className="modal-overlay" aria-hidden="true" />
        <Dialog.Content
          className={`modal${wide ? ' modal-wide' : ''}${tone === 'danger' ? ' modal-danger' : ''}`}
          data-testid={testId}
          onOpenAutoFocus={(e) => {
            if (!initialFocus?.current) return;
            e.preventDefault();
            initialFocus.current.focus();
          }}
          onCloseAutoFocus={(e) => {
            // Radix returns focus to a Dialog.Trigger, and these dialogs are opened by plain buttons
            // (open is state): without this, focus fell to the page body on close.
            if (!opener?.isConnected) return;
            e.preventDefault();
            opener.focus();
          }}
          {...(description ? {} : { 'aria-describedby': undefined })}
        >
          <div className="modal-header">
            <Dialog.Title className="modal-title">{title}</Dialog.Title>
            <Dialog.Close className="btn btn-small btn-quiet" aria-label="Close dialog">
              ✕
            </Dialog.Close>
          </div>
          {description && <Dialog.Description className="modal-description">{description}</Dialog.Description>}
          <div className="modal-body">{children}</div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** Random key; falls back to getRandomValues where randomUUID is missing (plain-HTTP origins). */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The key of one opening of a dialog: a new one each time `open` turns true, the same one for every
 * submit while it stays open. `renew()` starts a new decision inside the same dialog (for example
 * after a stale preview was refreshed, when the old key's request body no longer applies).
 */
export function useDialogKey(open: boolean): { key: string; renew: () => void } {
  const [state, setState] = useState(() => ({ open, key: newIdempotencyKey() }));
  let current = state;
  if (open !== state.open) {
    current = { open, key: open ? newIdempotencyKey() : state.key };
    setState(current);
  }
  return { key: current.key, renew: () => setState((s) => ({ ...s, key: newIdempotencyKey() })) };
}

/**
 * What had focus when `open` last turned true: read while rendering that change, before a field's
 * autoFocus or the dialog's own focus moves it, and kept through the close that gives focus back.
 */
function useOpener(open: boolean): HTMLElement | null {
  const [state, setState] = useState<{ open: boolean; opener: HTMLElement | null }>({ open: false, opener: null });
  if (open !== state.open) {
    const opener = open ? (document.activeElement instanceof HTMLElement ? document.activeElement : null) : state.opener;
    setState({ open, opener });
    return opener;
  }
  return state.opener;
}
