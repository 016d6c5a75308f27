/**
 * An OpenTelemetry trace id, copyable, and a link to the trace in the team's trace UI when the
 * server has a URL template for it (SWITCHBOARD_TRACE_URL_TEMPLATE, given with the session).
 */
import { useSession } from '../api/session';
import { CopyId } from './CopyId';

export function traceUrl(template: string, traceId: string): string {
  return template.replaceAll('{trace_id}', encodeURIComponent(traceId));
}

export function TraceId({ traceId }: { traceId: string }) {
  const template = useSession().data?.trace_url_template;
  return (
    <span data-testid="trace-id">
      <CopyId id={traceId} what="trace id" />
      {template && (
        <>
          {' '}
          <a href={traceUrl(template, traceId)} target="_blank" rel="noopener noreferrer" className="small" data-testid="trace-link">
            Open trace
          </a>
        </>
      )}
    </span>
  );
}
