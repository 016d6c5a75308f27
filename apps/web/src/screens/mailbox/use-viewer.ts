import { useSession } from '../../api/session';
import type { Viewer } from './approval-rules';

/** The signed-in person (GET /v1/auth/session); null while unknown, which leaves every rule to the server. */
export function useViewer(): Viewer | null {
  const user = useSession().data?.user;
  return user ? { userId: user.id, role: user.role } : null;
}
