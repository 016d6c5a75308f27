/** A failed read, in words: what happened, what to do, and the correlation id to quote. */
import { explainError } from '../api/error-messages';
import { CopyId } from './CopyId';

const NOT_RETRYABLE = new Set(['NOT_FOUND', 'INVALID_PARAMS', 'INVALID_CURSOR', 'METHOD_NOT_FOUND']);

export function ErrorState({ error, onRetry, compact }: { error: unknown; onRetry?: () => void; compact?: boolean }) {
  const e = explainError(error);
  return (
    <div className={`state state-error${compact ? ' state-compact' : ''}`} role="alert">
      <p className="state-title">{e.title}</p>
      <p>{e.hint}</p>
      <p className="muted small">
        <code>{e.code}</code>
        {e.message && e.message !== e.title ? ` · ${e.message}` : ''}
        {e.correlationId ? (
          <>
            {' '}
            · correlation id <CopyId id={e.correlationId} what="correlation id" />
          </>
        ) : null}
      </p>
      {/* Trying again cannot find what does not exist, or fix what was sent. */}
      {onRetry && !NOT_RETRYABLE.has(e.code) && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
