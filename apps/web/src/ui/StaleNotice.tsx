/** Shown on data panels while the heartbeat is stale or the connection is lost. */
import { useDataMayBeStale } from '../api/heartbeat';
import './StaleNotice.css';

export function StaleNotice() {
  const stale = useDataMayBeStale();
  if (!stale) return null;
  return (
    <p className="stale-notice" role="status" data-testid="stale-notice">
      <span aria-hidden="true">⚠</span> Connection to the server is interrupted: this data may be out of date.
    </p>
  );
}
