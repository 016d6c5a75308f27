/** The item's history as a timeline, oldest first: what happened, which token did it, when, and why. */
import type { MailboxHistoryEntry } from '@switchboard/contract';
import { ActorLabel } from '../../ui/ActorLabel';
import { JsonTree } from '../../ui/JsonTree';
import { RelativeTime, formatExact } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import './MailboxHistory.css';

const ACTION_TONE = { created: 'info', approved: 'ok', rejected: 'bad' } as const;

export function MailboxHistory({ history }: { history: MailboxHistoryEntry[] }) {
  if (history.length === 0) return <p className="muted">No history recorded.</p>;
  return (
    <ol className="timeline" aria-label="History">
      {history.map((h, i) => (
        <li key={`${h.ts}-${i}`} className={`timeline-entry timeline-${h.action}`} data-testid="history-entry" data-action={h.action}>
          <div className="timeline-line">
            <StatusBadge value={h.action} tone={ACTION_TONE[h.action]} />
            <span>
              by <ActorLabel id={h.actor_token_id} name={h.actor_token_name} />
            </span>
            {h.reason_code && <code className="reason-code">{h.reason_code}</code>}
            <span className="muted">
              <RelativeTime iso={h.ts} /> <span className="visually-hidden">({formatExact(h.ts)})</span>
            </span>
          </div>
          {h.reason && <p className="timeline-reason">“{h.reason}”</p>}
          {h.override_note && (
            <div className="timeline-override" data-testid="override-note">
              <p>
                <strong>Approved past failing gates</strong>
                {h.overridden_gates && h.overridden_gates.length > 0 && (
                  <>
                    :{' '}
                    {h.overridden_gates.map((g, i) => (
                      <span key={g.gate}>
                        {i > 0 && '; '}
                        <code>{g.gate}</code>
                        {g.summary ? `, ${g.summary}` : ''}
                      </span>
                    ))}
                  </>
                )}
              </p>
              <p className="timeline-reason">Override note: “{h.override_note}”</p>
            </div>
          )}
          {h.decision_payload && Object.keys(h.decision_payload).length > 0 && (
            <details>
              <summary>Decision payload</summary>
              <JsonTree value={h.decision_payload} fileName="decision-payload.json" />
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}
