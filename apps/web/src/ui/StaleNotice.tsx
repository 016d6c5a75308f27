/**
 * The one notice that what is on screen may be out of date: shown under the header while the
 * heartbeat is stale or the connection is lost, or while a read on screen failed and its last data
 * is kept (screens show an error card only when they have nothing to show). Its retry reads again
 * the reads that failed.
 */
import { useEffect, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useDataMayBeStale } from '../api/heartbeat';
import './StaleNotice.css';

/** Reads on screen that failed but still hold their last data. */
function failedReadsWithData(queryClient: QueryClient): number {
  return queryClient
    .getQueryCache()
    .findAll({ type: 'active' })
    .filter((q) => q.state.status === 'error' && q.state.data !== undefined).length;
}

function useFailedReadsWithData(): number {
  const queryClient = useQueryClient();
  const [count, setCount] = useState(() => failedReadsWithData(queryClient));
  useEffect(() => {
    const update = () => setCount(failedReadsWithData(queryClient));
    update();
    return queryClient.getQueryCache().subscribe(update);
  }, [queryClient]);
  return count;
}

export function StaleNotice() {
  const queryClient = useQueryClient();
  const disconnected = useDataMayBeStale();
  const failed = useFailedReadsWithData();
  if (!disconnected && failed === 0) return null;
  return (
    <p className="stale-notice" role="status" data-testid="stale-notice">
      <span>
        <span aria-hidden="true">⚠</span>{' '}
        {disconnected
          ? 'Connection to the server is interrupted: what is on screen is the last data read and may be out of date.'
          : 'The server did not answer the last refresh: what is on screen is the last data read and may be out of date.'}
      </span>
      {!disconnected && (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => void queryClient.refetchQueries({ type: 'active', predicate: (q) => q.state.status === 'error' })}
        >
          Try again
        </button>
      )}
    </p>
  );
}
