/**
 * Global "go to id": paste any id the console shows (event, run, entity, agent, session, mailbox
 * item, turn, dead letter, delivery, log record, operation, incident, server, token, or a `kind:id`
 * source) and open it. Press "/" anywhere (outside a text field) to focus it. A miss or an error
 * shows in a popover under the field, which closes when focus leaves the form or on Escape.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { explainError } from '../api/error-messages';
import { lookupId } from '../api/lookup';
import './GoToId.css';

export function GoToId() {
  const [value, setValue] = useState('');
  const [status, setStatus] = useState<{ kind: 'idle' | 'busy' | 'miss' | 'error' | 'info'; text?: string }>({ kind: 'idle' });
  const inputRef = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const inputId = useId();
  const statusId = useId();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.metaKey || e.ctrlKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      e.preventDefault();
      inputRef.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const id = value.trim();
    if (!id) return;
    setStatus({ kind: 'busy', text: 'Looking up…' });
    try {
      const hit = await lookupId(id);
      if (!hit) {
        setStatus({ kind: 'miss', text: `No record has the id “${id}”.` });
        return;
      }
      if (!hit.path) {
        setStatus({ kind: 'info', text: hit.text });
        return;
      }
      setStatus({ kind: 'idle' });
      setValue('');
      inputRef.current?.blur();
      navigate(hit.path);
    } catch (err) {
      const x = explainError(err);
      setStatus({ kind: 'error', text: `${x.title}. ${x.hint}` });
    }
  };

  return (
    <form
      className="goto"
      role="search"
      onSubmit={submit}
      onBlur={(e) => {
        // The answer belongs to the field: it closes once focus leaves the form.
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setStatus((s) => (s.kind === 'busy' ? s : { kind: 'idle' }));
      }}
    >
      <label htmlFor={inputId} className="visually-hidden">
        Go to id
      </label>
      <input
        ref={inputRef}
        id={inputId}
        type="search"
        placeholder="Go to id…  ( / )"
        spellCheck={false}
        autoComplete="off"
        value={value}
        onChange={(e) => {
          setValue(e.target.value);
          if (status.kind !== 'idle' && status.kind !== 'busy') setStatus({ kind: 'idle' });
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            setValue('');
            setStatus({ kind: 'idle' });
          }
        }}
        aria-describedby={status.text ? statusId : undefined}
      />
      <button type="submit" className="btn" disabled={status.kind === 'busy' || !value.trim()}>
        Go
      </button>
      <p id={statusId} className={`goto-status goto-${status.kind}`} role="status" aria-live="polite" data-testid="goto-status">
        {status.text}
      </p>
    </form>
  );
}
