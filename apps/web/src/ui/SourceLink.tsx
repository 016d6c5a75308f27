/**
 * An event's source as the runtime writes it (`kind:id`: node:pay-refund, agent:triage-agent,
 * mailbox:mbx_…, replay:op_…), linked to what it names; any other source (api) is plain text.
 */
import { Link } from 'react-router';
import { paths } from '../paths';
import { MiddleEllipsis } from './MiddleEllipsis';

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

/** `truncate`: for a table cell, the middle of the id gives way, never its kind or its end. */
export function SourceLink({ source, truncate, tabIndex }: { source: string; truncate?: boolean; tabIndex?: number }) {
  const to = sourcePath(source);
  const text = truncate ? <MiddleEllipsis text={source} tail={Math.min(12, Math.max(0, source.length - source.indexOf(':') - 1))} /> : source;
  if (!to) return <>{text}</>;
  return (
    <Link to={to} tabIndex={tabIndex} className={truncate ? 'mid-ellipsis-link' : 'wrap'} data-testid="source-link">
      {text}
    </Link>
  );
}
