/** What a reset would do, from the dry run: a headline, then each owner's own preview. */
import type { NukeResult } from '../../api/runtime';
import { OwnerSection } from './OwnerSection';
import { asCounts, total } from './nuke-format';
import './NukePreview.css';

export function NukePreview({ result }: { result: NukeResult }) {
  const remove = asCounts(result.plan.remove) ?? asCounts(result.cleanup.would_delete);
  const keep = result.cleanup.would_keep;
  const stop = (result.plan.containers_to_stop as { count?: number } | undefined)?.count ?? (result.containers.count as number | undefined);
  return (
    <div className="nuke-preview" data-testid="nuke-preview">
      <ul className="nuke-headline">
        <li>
          <strong className="bad">Removes {total(remove).toLocaleString()} records</strong>
          {remove && (
            <span className="muted small">
              {' '}
              (
              {Object.entries(remove)
                .filter(([, n]) => n > 0)
                .map(([k, n]) => `${n.toLocaleString()} ${k.replace(/_/g, ' ')}`)
                .join(', ') || 'nothing'}
              )
            </span>
          )}
        </li>
        <li>
          <strong>Stops {stop ?? 0} managed container{stop === 1 ? '' : 's'}</strong>
        </li>
        {Array.isArray(keep) && (
          <li>
            <strong className="ok">Keeps</strong> <span className="small">{keep.map((k) => String(k).replace(/_/g, ' ')).join(', ')}</span>
          </li>
        )}
      </ul>
      <p className="muted small">
        Plan hash <code className="wrap" data-testid="plan-hash">{String(result.plan.plan_hash ?? '—')}</code>: applying refuses if the runtime changes before you confirm.
      </p>
      <div className="owners">
        <OwnerSection title="Plan" section={result.plan} testId="owner-plan" />
        <OwnerSection title="Quiescence" section={result.quiescence} testId="owner-quiescence" />
        <OwnerSection title="Cleanup" section={result.cleanup} testId="owner-cleanup" />
        <OwnerSection title="Containers" section={result.containers} testId="owner-containers" />
      </div>
    </div>
  );
}
