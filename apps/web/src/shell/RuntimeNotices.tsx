/**
 * Notices every screen shows under the header: a reset made anywhere (announced over the
 * WebSocket; the console drops its cached data and reads everything again), and paused ingress
 * with the queue depth (at once after this console's pause or resume, and within a second of one
 * made anywhere, through the change feed).
 */
import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useHeartbeat } from '../api/heartbeat';
import { runtimeStatusQuery, useIngress } from '../api/runtime';
import { ActorLabel } from '../ui/ActorLabel';
import { RelativeTime } from '../ui/RelativeTime';
import { rpcKeys } from '../api/query-client';
import './RuntimeNotices.css';

/** The reset whose cached data this tab already dropped. */
let handledResetId: string | undefined;

export function RuntimeNotices() {
  const { lastReset } = useHeartbeat();
  const queryClient = useQueryClient();
  const [dismissed, setDismissed] = useState<string | null>(null);
  const resetId = lastReset?.reset_id;
  useEffect(() => {
    // Every cached read may describe records the reset removed: drop them and read again. Once
    // per reset, though this component mounts again (the session is not a runtime read).
    if (!resetId || handledResetId === resetId) return;
    handledResetId = resetId;
    // Cached reads not on screen are dropped; the ones on screen are read again in place (a
    // screen keeps its layout and open dialogs, such as the reset's own outcome).
    queryClient.removeQueries({ queryKey: rpcKeys.all, type: 'inactive' });
    void queryClient.invalidateQueries({ queryKey: rpcKeys.all, refetchType: 'active' });
  }, [resetId, queryClient]);

  const { ingress, queueDepth: depth } = useIngress();
  const paused = ingress === 'paused';
  // While paused, the depth is polled (queued publishes change no stored record the feed reports).
  useQuery({ ...runtimeStatusQuery, enabled: paused });

  return (
    <>
      {lastReset && dismissed !== lastReset.reset_id && (
        <div className="notice-bar notice-reset" role="status" data-testid="reset-notice">
          <span>
            <strong>The runtime was reset</strong> <RelativeTime iso={lastReset.finished_at} />
            {lastReset.actor_token_id ? (
              <>
                {' by '}
                <ActorLabel id={lastReset.actor_token_id} />
              </>
            ) : null}
            {lastReset.reason ? ` (“${lastReset.reason}”)` : ''}
            {lastReset.status === 'partial_failure' ? ', with a partial failure' : ''}. Everything on screen was read again.
          </span>
          <span className="notice-actions">
            <Link to="/runtime#resets">Past resets</Link>
            <button type="button" className="btn btn-small btn-quiet" onClick={() => setDismissed(lastReset.reset_id)}>
              Dismiss
            </button>
          </span>
        </div>
      )}
      {paused && (
        <div className="notice-bar notice-paused" role="status" data-testid="ingress-paused-notice">
          <span>
            <strong>Ingress is paused</strong>
            {depth !== undefined ? `: ${depth.toLocaleString()} ${depth === 1 ? 'publish' : 'publishes'} queued` : ''}. New publishes wait until it is resumed.
          </span>
          <span className="notice-actions">
            <Link to="/runtime#ingress">Queue and resume</Link>
          </span>
        </div>
      )}
    </>
  );
}
