/**
 * The server-owned decision sheet, rendered for a reviewer: what approval would emit and to whom
 * (or why nothing), and the entity the item is about: its state, fields, gates and accumulated values.
 */
import type { DecisionSheet as Sheet } from '@switchboard/contract';
import { Link } from 'react-router';
import { paths } from '../../paths';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import './DecisionSheet.css';

const PREVIEW_REASONS: Record<string, string> = {
  no_approval_route: 'This item type has no approval route in the bundle, so approving it only records the decision.',
};
const ENTITY_REASONS: Record<string, string> = {
  no_source_entity: 'This item was not opened for an entity.',
  entity_not_found: 'The entity this item was opened for no longer exists (a reset may have removed it).',
};

export function DownstreamPreview({ preview }: { preview: Sheet['downstream_preview'] }) {
  if (!preview.available || !preview.event_name) {
    return (
      <div className="callout" data-testid="downstream-preview">
        <p>
          <strong>Approving emits no event.</strong> {PREVIEW_REASONS[preview.reason ?? ''] ?? ''}
        </p>
        {preview.reason && (
          <p className="muted small">
            reason: <code>{preview.reason}</code>
          </p>
        )}
      </div>
    );
  }
  return (
    <div className="callout callout-info" data-testid="downstream-preview">
      <p>
        Approving emits <code className="event-name">{preview.event_name}</code> to {preview.subscribers.length} subscriber
        {preview.subscribers.length === 1 ? '' : 's'}:
      </p>
      {preview.subscribers.length > 0 ? (
        <ul className="chips" aria-label="Subscribers that would receive it">
          {preview.subscribers.map((s) => (
            <li key={s} className="chip mono">
              {s}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No subscriber listens to it in the bundle.</p>
      )}
      <p className="muted small">Subscribers from the bundle&rsquo;s {preview.subscriber_source.replace(/_/g, ' ')}.</p>
    </div>
  );
}

export function EntityContext({ context }: { context: Sheet['entity_context'] }) {
  if (!context.available || !context.entity) {
    return (
      <div className="callout" data-testid="entity-context">
        <p>
          <strong>No entity context.</strong> {ENTITY_REASONS[context.reason ?? ''] ?? ''}
        </p>
        {context.reason && (
          <p className="muted small">
            reason: <code>{context.reason}</code>
          </p>
        )}
      </div>
    );
  }
  const { entity, fields, gates, accumulated } = context.entity;
  const gateEntries = Object.entries(gates);
  const failed = gateEntries.filter(([, g]) => !g.passed).length;
  return (
    <div className="entity-context" data-testid="entity-context">
      <dl className="kv">
        <dt>Entity</dt>
        <dd>
          <Link to={paths.entity(entity.entity_id)} className="mono">
            {entity.entity_id}
          </Link>{' '}
          <span className="muted">({entity.entity_type})</span>
        </dd>
        {entity.name && (
          <>
            <dt>Name</dt>
            <dd>{entity.name}</dd>
          </>
        )}
        <dt>State</dt>
        <dd>
          <StatusBadge value={entity.current_state} tone="info" />
        </dd>
        <dt>Revision</dt>
        <dd data-testid="entity-revision">{entity.revision}</dd>
        <dt>Run</dt>
        <dd>
          <Link to={paths.run(entity.run_id)} className="mono">
            {entity.run_id}
          </Link>
        </dd>
        <dt>Updated</dt>
        <dd>
          <RelativeTime iso={entity.updated_at} />
        </dd>
      </dl>
      <h4>
        Gates{' '}
        <span className="muted small">
          {gateEntries.length === 0 ? 'none' : failed === 0 ? `all ${gateEntries.length} pass` : `${failed} of ${gateEntries.length} fail`}
        </span>
      </h4>
      {gateEntries.length > 0 && (
        <ul className="gates" aria-label="Gates">
          {gateEntries.map(([name, gate]) => (
            <li key={name} className={gate.passed ? 'gate gate-pass' : 'gate gate-fail'}>
              <span className="gate-mark" aria-hidden="true">
                {gate.passed ? '✓' : '✗'}
              </span>
              <span className="mono">{name}</span>
              <StatusBadge value={gate.passed ? 'pass' : 'fail'} tone={gate.passed ? 'ok' : 'bad'} />
              {gate.detail && <span className="gate-detail muted small">{gate.detail}</span>}
            </li>
          ))}
        </ul>
      )}
      <h4>Fields</h4>
      <ValueTable values={fields} label="Entity fields" />
      <h4>Accumulated</h4>
      <ValueTable values={accumulated} label="Accumulated values" />
    </div>
  );
}

function ValueTable({ values, label }: { values: Record<string, unknown>; label: string }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="muted small">None.</p>;
  return (
    <table className="values" aria-label={label}>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row" className="mono">
              {k}
            </th>
            <td className="mono">{typeof v === 'string' ? v : JSON.stringify(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
