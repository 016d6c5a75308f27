/**
 * An id as the console shows it in a detail: the id (a link when it opens something), whole and
 * wrapping where the panel is narrow, with a copy button named for what it copies.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { CopyButton } from './CopyButton';

export function CopyId({ id, what, to, testId, children }: { id: string; what: string; to?: string; testId?: string; children?: ReactNode }) {
  return (
    <span className="copy-id">
      {to ? (
        <Link to={to} className="mono wrap" data-testid={testId}>
          {children ?? id}
        </Link>
      ) : (
        <span className="mono wrap" data-testid={testId}>
          {children ?? id}
        </span>
      )}{' '}
      <CopyButton text={() => id} ariaLabel={`Copy ${what} ${id}`} />
    </span>
  );
}
