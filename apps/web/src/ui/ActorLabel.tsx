/**
 * Who did something, one way everywhere: the token's name with its id beside it (the id is what
 * the audit trail keys on), the id alone while no name is known, and "the runtime" for the
 * runtime's own actions.
 */
import { useTokenName } from '../api/tokens';
import './ActorLabel.css';

export function ActorLabel({ id, name }: { id: string | undefined; name?: string }) {
  const known = useTokenName(id, name);
  if (!id) return <span className="muted">—</span>;
  if (id === 'runtime') return <span className="actor">the runtime</span>;
  return (
    <span className="actor" data-testid="actor" title={known ? `${known} (token ${id})` : `token ${id}`}>
      {known && <strong className="actor-name">{known}</strong>}
      {known && ' '}
      <code className={known ? 'actor-id muted small' : 'actor-id'}>
        {id}
      </code>
    </span>
  );
}
