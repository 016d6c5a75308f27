/**
 * Error boundary for routes: a screen crashed or its code failed to load (often a new deploy).
 * Inside the shell (`inline`) the header stays usable; at the root it replaces the page.
 */
import { useRouteError } from 'react-router';

export function RouteError({ inline = false }: { inline?: boolean }) {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : String(error);
  const body = (
    <div className="state state-error" role="alert">
      <h1>This screen failed to load</h1>
      <p>{message}</p>
      <button type="button" className="btn" onClick={() => window.location.reload()}>
        Reload
      </button>
    </div>
  );
  if (inline) return <section className="screen">{body}</section>;
  return (
    <main className="page-center" id="main">
      {body}
    </main>
  );
}
