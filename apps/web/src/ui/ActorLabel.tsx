/**
 * Who did something, one way everywhere: the person's display name, with their user id and the
 * acting token's name and id on hover (the ids are what the audit trail keys on). Until the
 * person is known it shows the token's name, then its id; "the runtime" for the runtime's own.
 */
import { useTokenOwner } from '../api/tokens';
import './ActorLabel.css';

export function ActorLabel({ id, name, userId, userName }: { id: string | undefined; name?: string; userId?: string; userName?: string }) {
  const owner = useTokenOwner(id, { tokenName: name, userId, userName });
  if (!id && !userId) return <span className="muted">—</span>;
  if (id === 'runtime') return <span className="actor">the runtime</span>;
  const shown = owner.userName ?? owner.tokenName ?? id ?? owner.userId!;
  const hover = [
    owner.userName ? owner.userName : undefined,
    owner.userId ? `user ${owner.userId}` : undefined,
    owner.role,
    id ? `token ${owner.tokenName ? `“${owner.tokenName}” ` : ''}${id}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <span className="actor" data-testid="actor" data-token-id={id} data-user-id={owner.userId} title={hover}>
      <span className={owner.userName || owner.tokenName ? 'actor-name' : 'actor-name mono'}>{shown}</span>
    </span>
  );
}
