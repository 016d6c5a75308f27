/**
 * Live health in the header, fed by the health.subscribe heartbeat. The details (age, latency,
 * ingress, bundle, live servers) show on hover or keyboard focus, and on tap for touch screens.
 */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { heartbeatIndicator, useHeartbeat, type IndicatorState } from '../api/heartbeat';
import { paths } from '../paths';
import { useNow } from '../ui/use-now';
import './HeartbeatIndicator.css';

const LABEL: Record<IndicatorState, string> = {
  connecting: 'Connecting',
  healthy: 'Healthy',
  degraded: 'Degraded',
  down: 'Down',
  reconnecting: 'Reconnecting',
  stale: 'Stale',
};

export function HeartbeatIndicator() {
  const hb = useHeartbeat();
  const now = useNow(1000);
  const state = heartbeatIndicator(hb);
  const [pinned, setPinned] = useState(false);
  const detailsId = useId();
  const age = hb.lastAt === null ? null : Math.max(0, Math.round((now - hb.lastAt) / 1000));
  const fresh = state === 'healthy' || state === 'degraded' || state === 'down';
  const retryIn = hb.nextRetryAt === null ? null : Math.max(0, Math.ceil((hb.nextRetryAt - now) / 1000));

  return (
    <div className={`heartbeat${pinned ? ' is-pinned' : ''}`} data-state={state}>
      <button
        type="button"
        className="heartbeat-button"
        aria-describedby={detailsId}
        aria-expanded={pinned}
        onClick={() => setPinned((p) => !p)}
        onKeyDown={(e) => e.key === 'Escape' && setPinned(false)}
        data-testid="heartbeat"
      >
        <span className="heartbeat-dot" aria-hidden="true" />
        <span className="heartbeat-label">{LABEL[state]}</span>
        <span className="visually-hidden">: runtime health</span>
      </button>
      <div className="heartbeat-details" id={detailsId} role="tooltip">
        <dl>
          <dt>State</dt>
          <dd>{LABEL[state]}</dd>
          <dt>Last heartbeat</dt>
          <dd>{age === null ? 'none yet' : `${age} s ago`}</dd>
          <dt>Round trip</dt>
          <dd>{hb.latencyMs === null ? '—' : `${hb.latencyMs} ms`}</dd>
          <dt>Interval</dt>
          <dd>{(hb.intervalMs / 1000).toFixed(1)} s</dd>
          <dt>Ingress</dt>
          <dd>{hb.last?.ingress ?? '—'}</dd>
          <dt>Bundle</dt>
          <dd className="mono wrap">{hb.last ? `${hb.last.bundle.name} ${hb.last.bundle.fingerprint}` : '—'}</dd>
          {hb.last && (
            <>
              <dt>Servers</dt>
              <dd>
                <Link
                  to={paths.servers()}
                  data-testid="heartbeat-servers"
                  onClick={(e) => {
                    // Focus would stay inside and keep the details open over the page it opens.
                    e.currentTarget.blur();
                    setPinned(false);
                  }}
                >
                  {hb.last.status === 'down' ? 'unknown' : `${hb.last.servers.length} live`}
                </Link>
              </dd>
              <dt>Uptime</dt>
              <dd>{formatUptime(hb.last.uptime_s)}</dd>
            </>
          )}
          {state === 'reconnecting' && (
            <>
              <dt>Reconnect</dt>
              <dd>
                attempt {hb.attempts}
                {retryIn !== null && retryIn > 0 ? `, next in ${retryIn} s` : ''}
              </dd>
            </>
          )}
        </dl>
        {hb.last && Object.keys(hb.last.checks).length > 0 && (
          // Out of date once the heartbeats stop: the marks say "last known", not "now".
          <ul className={`heartbeat-checks${fresh ? '' : ' heartbeat-checks-old'}`} data-testid="heartbeat-checks" data-fresh={fresh}>
            {!fresh && <li className="muted small">Last known, {age === null ? '' : `${age} s ago`} (not connected):</li>}
            {Object.entries(hb.last.checks).map(([name, check]) => (
              <li key={name}>
                <span className={fresh ? (check.ok ? 'ok' : 'bad') : 'muted'}>{fresh ? (check.ok ? '✓' : '✗') : '?'}</span> {name} · {check.latency_ms} ms
                {check.detail ? ` · ${check.detail}` : ''}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function formatUptime(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  const h = Math.floor(s / 3600);
  return h < 48 ? `${h} h ${Math.floor((s % 3600) / 60)} min` : `${Math.floor(h / 24)} d ${h % 24} h`;
}
