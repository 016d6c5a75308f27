import { isRole } from '@switchboard/contract';
import { useSession } from '../../api/session';
import type { Viewer } from './approval-rules';

/**
 * The signed-in person, from the session's `user` (GET /v1/auth/session); null while unknown. Read
 * defensively: a server that names no user leaves every rule to the server's own answer.
 */
export function useViewer(): Viewer | null {
  const session = useSession();
  const data: unknown = session.data;
  const user = data && typeof data === 'object' && 'user' in data ? (data.user as { id?: unknown; role?: unknown } | null) : null;
  return user && typeof user.id === 'string' && isRole(user.role) ? { userId: user.id, role: user.role } : null;
}
