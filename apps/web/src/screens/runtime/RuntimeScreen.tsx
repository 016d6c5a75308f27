/**
 * The runtime: ingress state with pause and resume, the loaded bundle, queue depth and activity,
 * the live servers, retention, and the reset (runtime.nuke) behind a three-step dialog.
 */
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useRuntimeStatus } from '../../api/runtime';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { IngressDialog } from './IngressDialog';
import { ServersSection } from './ServersSection';
import { RetentionSection } from './RetentionSection';
import { NukeDialog } from './NukeDialog';
import { RefreshButton } from '../../ui/RefreshButton';
import { OperationsSection } from '../operations/OperationsSection';
import { PastResets, QueuedPublishes } from './RuntimeRecords';
import { ToolServersSection } from '../operations/ToolServersSection';
import { GuardedButton } from '../../ui/GuardedButton';
import './RuntimeScreen.css';

export default function RuntimeScreen() {
  const status = useRuntimeStatus();
  const [ingressDialog, setIngressDialog] = useState<'pause' | 'resume' | null>(null);
  const [nukeOpen, setNukeOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const s = status.data;
  const location = useLocation();
  const loaded = status.isSuccess;
  const navigate = useNavigate();
  // Links from the notices land on a section; the router does not scroll to a hash by itself.
  useEffect(() => {
    // Links made before the rename of ADR 0017 still land on their section.
    if (location.hash === '#nodes') return void navigate({ hash: '#servers' }, { replace: true });
    if (loaded && ['#ingress', '#servers', '#retention', '#resets'].includes(location.hash)) document.getElementById(location.hash.slice(1))?.scrollIntoView({ block: 'start' });
  }, [loaded, location.hash, navigate]);

  return (
    <section className="screen screen-page" aria-labelledby="runtime-title">
      <div className="screen-header">
        <h1 id="runtime-title">Runtime</h1>
        {s && <span className="mono muted">{s.name}</span>}
        <RefreshButton query={status} />
      </div>
      {status.isPending ? (
        <LoadingState label="Loading runtime status" />
      ) : status.isError && status.data === undefined ? (
        <ErrorState error={status.error} onRetry={() => void status.refetch()} />
      ) : (
        <>
          {notice && (
            <p className="callout callout-ok" role="status">
              {notice}
            </p>
          )}
          <div className="page-grid">
            <section className="panel" aria-labelledby="ingress-title" id="ingress">
              <h2 id="ingress-title">Ingress</h2>
              <dl className="kv">
                <dt>State</dt>
                <dd data-testid="ingress-state">
                  <StatusBadge value={s!.ingress} tone={s!.ingress === 'open' ? 'ok' : 'warn'} />
                </dd>
                <dt>Queue depth</dt>
                <dd data-testid="queue-depth">{s!.queue_depth.toLocaleString()} queued</dd>
              </dl>
              {s!.ingress === 'open' ? (
                <GuardedButton action="runtime.pause" className="btn" onClick={() => setIngressDialog('pause')} disabled={s!.reset_in_progress}>
                  Pause ingress…
                </GuardedButton>
              ) : (
                <GuardedButton action="runtime.resume" className="btn btn-primary" onClick={() => setIngressDialog('resume')} disabled={s!.reset_in_progress}>
                  Resume ingress…
                </GuardedButton>
              )}
              {s!.ingress === 'paused' && <QueuedPublishes />}
            </section>
            <section className="panel" aria-labelledby="bundle-title">
              <h2 id="bundle-title">Bundle</h2>
              <dl className="kv">
                <dt>Name</dt>
                <dd>{s!.bundle.name}</dd>
                <dt>Version</dt>
                <dd>{s!.bundle.version}</dd>
                <dt>Fingerprint</dt>
                <dd>
                  <code className="wrap" data-testid="bundle-fingerprint">
                    {s!.bundle.fingerprint}
                  </code>{' '}
                  <CopyButton text={() => s!.bundle.fingerprint} />
                </dd>
                <dt>Loaded</dt>
                <dd>
                  <RelativeTime iso={s!.bundle.loaded_at} />
                </dd>
              </dl>
            </section>
            <section className="panel" aria-labelledby="activity-title">
              <h2 id="activity-title">Activity</h2>
              <dl className="kv">
                <dt>Active runs</dt>
                <dd>{s!.active_runs.toLocaleString()}</dd>
                <dt>Pending deliveries</dt>
                <dd>{s!.pending_deliveries.toLocaleString()}</dd>
                <dt>Reset</dt>
                <dd>{s!.reset_in_progress ? <StatusBadge value="in progress" tone="warn" /> : 'none in progress'}</dd>
                <dt>Runtime started</dt>
                <dd>
                  <RelativeTime iso={s!.started_at} />
                </dd>
              </dl>
            </section>
            <ServersSection />
            <OperationsSection />
            <ToolServersSection />
            <RetentionSection />
            <PastResets />
            <section className="panel panel-danger panel-full" aria-labelledby="reset-title">
              <h2 id="reset-title">Reset the runtime</h2>
              <p>
                Removes every run, event, delivery, dead letter, entity, mailbox item, conversation and run log, and stops the managed containers.
                Tokens, the bundle and the reset audit trail are kept. You see a dry run first and confirm in three steps.
              </p>
              <GuardedButton action="runtime.nuke" className="btn btn-danger" onClick={() => setNukeOpen(true)} disabled={s!.reset_in_progress} data-testid="open-nuke">
                Reset runtime…
              </GuardedButton>
            </section>
          </div>
          {ingressDialog && (
            <IngressDialog
              mode={ingressDialog}
              status={s!}
              onClose={() => setIngressDialog(null)}
              onDone={(message) => {
                setIngressDialog(null);
                setNotice(message);
              }}
            />
          )}
          <NukeDialog open={nukeOpen} onOpenChange={setNukeOpen} status={s!} />
        </>
      )}
    </section>
  );
}
