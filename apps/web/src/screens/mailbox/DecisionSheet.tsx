/**
 * The server-owned decision sheet, rendered for a reviewer: what approval would emit and to whom
 * (or why nothing), and the entity the item is about: its state, fields, gates and accumulated values.
 */
import type { DecisionSheet as Sheet, Result } from '@switchboard/contract';
import { JsonTree } from '../../ui/JsonTree';
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

type Review = Result<'mailbox.get'>;

/** What differs between the entity as the decider saw it and as it is now, in words. */
export function entityChanges(atDecision: Sheet['entity_context'], now: Sheet['entity_context']): string[] {
  const a = atDecision.entity;
  const b = now.entity;
  if (!a && !b) return [];
  if (a && !b) return ['the entity no longer exists'];
  if (!a || !b) return ['the entity exists now'];
  const out: string[] = [];
  if (a.entity.current_state !== b.entity.current_state) out.push(`state ${a.entity.current_state} → ${b.entity.current_state}`);
  if (a.entity.revision !== b.entity.revision) out.push(`revision ${a.entity.revision} → ${b.entity.revision}`);
  for (const [name, gate] of Object.entries(b.gates)) {
    const before = a.gates[name];
    if (before && before.passed !== gate.passed) out.push(`gate ${name} ${before.passed ? 'passed' : 'failed'} → ${gate.passed ? 'passes' : 'fails'}`);
  }
  const keys = new Set([...Object.keys(a.fields), ...Object.keys(b.fields)]);
  for (const k of keys) if (JSON.stringify(a.fields[k]) !== JSON.stringify(b.fields[k])) out.push(`field ${k} ${JSON.stringify(a.fields[k] ?? null)} → ${JSON.stringify(b.fields[k] ?? null)}`);
  return out;
}

/**
 * A decided item: what it emitted (or that it emitted nothing), and the entity "At decision", as
 * the decider saw it, with "Now" beside it where they differ. Never an "If approved" block.
 */
export function DecidedSheet({ review }: { review: Review }) {
  const { item, decided_sheet: atDecision, decision_sheet: now } = review;
  const changes = atDecision ? entityChanges(atDecision.entity_context, now.entity_context) : [];
  return (
    <div className="decided-sheet" data-testid="decided-sheet">
      <h3>Emitted</h3>
      {item.status === 'rejected' ? (
        <p className="muted">Nothing: a rejected item emits no event.</p>
      ) : review.emitted_event_id ? (
        <div className="callout callout-info" data-testid="emitted">
          <p>
            Emitted{' '}
            <Link to={paths.event(review.emitted_event_id)} className="event-name">
              {(atDecision ?? now).downstream_preview.event_name ?? 'an event'}
            </Link>{' '}
            <span className="mono small muted">{review.emitted_event_id}</span>
          </p>
          {review.emitted_payload && <JsonTree value={review.emitted_payload} fileName={`${item.mailbox_id}-emitted.json`} />}
        </div>
      ) : (
        <p className="muted">Nothing: this item type has no approval route.</p>
      )}
      {atDecision ? (
        <>
          <h3>
            Entity at decision{' '}
            <span className="muted small" data-testid="entity-changed">
              {changes.length === 0 ? '· unchanged since' : `· changed since: ${changes.length} difference${changes.length === 1 ? '' : 's'}`}
            </span>
          </h3>
          <div className={changes.length ? 'sheet-compare' : undefined}>
            <section aria-label="At decision" data-testid="at-decision">
              {changes.length > 0 && <h4>At decision</h4>}
              <EntityContext context={atDecision.entity_context} />
            </section>
            {changes.length > 0 && (
              <section aria-label="Now" data-testid="now">
                <h4>Now</h4>
                <ul className="sheet-changes">
                  {changes.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
                <EntityContext context={now.entity_context} />
              </section>
            )}
          </div>
        </>
      ) : (
        <>
          <h3>Entity now</h3>
          <p className="muted small">The sheet as it was at decision was not recorded (decided by an earlier version).</p>
          <EntityContext context={now.entity_context} />
        </>
      )}
    </div>
  );
}
