/**
 * The result of an applied reset. A partial failure is shown as a failure, every error with its
 * scope and message; only a complete reset gets the success styling.
 */
import type { NukeResult } from '../../api/runtime';
import { OwnerSection } from './OwnerSection';
import { asCounts, total } from './nuke-format';
import './NukeOutcome.css';

export function NukeOutcome({ result }: { result: NukeResult }) {
  const partial = result.partial_failure || !result.ok || result.status !== 'completed';
  const deleted = asCounts(result.cleanup.deleted);
  const stopped = Array.isArray(result.containers.stopped) ? result.containers.stopped.length : undefined;
  return (
    <div className="nuke-outcome" data-testid="nuke-outcome" data-status={result.status}>
      {partial ? (
        <div className="callout callout-bad" role="alert">
          <p className="outcome-title">
            <span aria-hidden="true">✗ </span>
            Reset ended in partial failure
          </p>
          <p>Some steps did not complete. The runtime may be only partly reset: read each error before doing anything else.</p>
          <ul className="reset-errors" aria-label="Errors" data-testid="nuke-errors">
            {(result.errors ?? []).map((e, i) => (
              <li key={i}>
                <span className="badge badge-bad">{e.scope}</span> <span className="error-text">{e.message}</span>
              </li>
            ))}
            {(result.errors ?? []).length === 0 && <li>The server reported a failure without details.</li>}
          </ul>
        </div>
      ) : (
        <div className="callout callout-ok" role="status">
          <p className="outcome-title">
            <span aria-hidden="true">✓ </span>
            Reset complete
          </p>
          <p>
            Removed {total(deleted).toLocaleString()} records
            {stopped !== undefined ? ` and stopped ${stopped} container${stopped === 1 ? '' : 's'}` : ''}. Tokens, the bundle and the audit trail were
            kept.
          </p>
        </div>
      )}
      <p className="muted small">
        Status <code>{result.status}</code>
        {result.reset_id ? (
          <>
            {' '}
            · reset id <code>{result.reset_id}</code>
          </>
        ) : null}
      </p>
      <div className="owners">
        <OwnerSection title="Quiescence" section={result.quiescence} />
        <OwnerSection title="Cleanup" section={result.cleanup} />
        <OwnerSection title="Containers" section={result.containers} />
        <OwnerSection title="Plan" section={result.plan} />
      </div>
    </div>
  );
}
