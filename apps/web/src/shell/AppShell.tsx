/**
 * The frame around every screen: sign-in gate, header (navigation, go-to-id, heartbeat, session)
 * and the routed screen. Signed-out visitors keep their URL, so a pasted deep link opens after sign-in.
 */
import { Suspense, useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, NavLink, Outlet, useNavigation } from 'react-router';
import { onForbidden, onUnauthenticated, type SessionInfo } from '../api/client';
import { heartbeat, useHeartbeat } from '../api/heartbeat';
import { useLiveUpdates } from '../api/live-updates';
import { sessionQuery, useSession, useSignOut } from '../api/session';
import { screens } from '../routes';
import { ErrorState } from '../ui/ErrorState';
import { LoadingState } from '../ui/LoadingState';
import { StaleNotice } from '../ui/StaleNotice';
import { GoToId } from './GoToId';
import { HeartbeatIndicator } from './HeartbeatIndicator';
import { RunningOperations } from './RunningOperations';
import { RuntimeNotices } from './RuntimeNotices';
import { SignIn } from './SignIn';
import './AppShell.css';

export function AppShell() {
  const queryClient = useQueryClient();
  const session = useSession();
  const signedIn = Boolean(session.data);

  useEffect(
    () =>
      onUnauthenticated(() => {
        queryClient.setQueryData(sessionQuery.queryKey, null);
      }),
    [queryClient],
  );
  // A refusal may mean an admin changed this person's role meanwhile: the buttons follow it.
  useEffect(() => onForbidden(() => void queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey })), [queryClient]);

  useEffect(() => {
    if (!signedIn) return;
    heartbeat.start();
    return () => heartbeat.stop();
  }, [signedIn]);

  if (session.isPending) {
    return (
      <div className="page-center">
        <LoadingState label="Connecting to the server" />
      </div>
    );
  }
  if (session.isError) {
    return (
      <div className="page-center">
        <ErrorState error={session.error} onRetry={() => void session.refetch()} />
      </div>
    );
  }
  if (!session.data) return <SignIn />;
  return <SignedInShell session={session.data} />;
}

function SignedInShell({ session }: { session: SessionInfo }) {
  const queryClient = useQueryClient();
  const navigation = useNavigation();
  const signOut = useSignOut();
  const { recoveries } = useHeartbeat();
  useLiveUpdates();
  const headerRef = useRef<HTMLElement>(null);
  // Narrow screens open details over the content but below the header (which wraps to a
  // varying height): publish where the header ends.
  useEffect(() => {
    const header = headerRef.current;
    if (!header) return;
    const publish = () => document.documentElement.style.setProperty('--header-bottom', `${Math.round(header.getBoundingClientRect().bottom)}px`);
    publish();
    const observer = new ResizeObserver(publish);
    observer.observe(header);
    return () => observer.disconnect();
  }, []);

  // After an outage, failed reads retry by themselves; loaded lists stay put so rows do not jump.
  useEffect(() => {
    if (recoveries > 0) void queryClient.refetchQueries({ predicate: (q) => q.state.status === 'error' });
  }, [recoveries, queryClient]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header" ref={headerRef}>
        <Link to="/" className="brand" aria-label="Switchboard home">
          <span aria-hidden="true" className="brand-mark">
            ◆
          </span>
          Switchboard
        </Link>
        <nav aria-label="Main" className="main-nav">
          <ul>
            {screens
              .filter((s) => s.nav && (!s.needs || session.scopes.includes(s.needs)))
              .map((s) => (
                <li key={s.path}>
                  <NavLink to={`/${s.path.replace(/\/\*$/, '')}`}>{s.nav}</NavLink>
                </li>
              ))}
          </ul>
        </nav>
        <GoToId />
        <div className="header-end">
          <RunningOperations />
          <HeartbeatIndicator />
          <div className="session">
            <span className="session-who" data-testid="session-user" title={`${session.user.display_name} (user ${session.user.id}), ${session.user.role}, signed in with token “${session.token.name}” (${session.token.id})`}>
              <span className="session-name">{session.user.display_name}</span>
              <span className={`role-badge role-${session.user.role}`} data-testid="session-role">
                {session.user.role}
              </span>
            </span>
            <button type="button" className="btn btn-quiet" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
              Sign out
            </button>
          </div>
        </div>
        <StaleNotice />
      </header>
      <RuntimeNotices />
      {navigation.state === 'loading' && <div className="route-progress" role="progressbar" aria-label="Loading screen" />}
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<LoadingState label="Loading screen" />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
