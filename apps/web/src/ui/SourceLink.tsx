/**
 * An event's source as the runtime writes it (`kind:id`: node:pay-refund, agent:triage-agent,
 * mailbox:mbx_…, replay:op_…), linked to what it names; any other source (api) is plain text.
 */
import { Link } from 'react-router';
import { paths } from '../paths';

export function sourcePath(source: string): string | undefined {
  const colon = source.indexOf(':');
  if (colon <= 0) return undefined;
  const kind = source.slice(0, colon);
  const id = source.slice(colon + 1);
  if (!id) return undefined;
  switch (kind) {
    case 'node':
      return paths.subscriber(id);
    case 'agent':
      return paths.agent(id);
    case 'mailbox':
      return paths.mailbox(id);
    case 'replay':
    case 'redrive':
      return paths.operation(id);
    default:
      return undefined;
  }
}

export function SourceLink({ source }: { source: string }) {
  const to = sourcePath(source);
  if (!to) return <>{source}</>;
  return (
    <Link to={to} className="wrap" data-testid="source-link">
      {source}
    </Link>
  );
}
