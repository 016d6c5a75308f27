/** "/" opens where the signed-in person's work is (a reviewer's mailbox, everyone else's incidents). */
import { Navigate } from 'react-router';
import { useSession } from '../api/session';
import { homePathFor } from '../routes';

export function HomeRedirect() {
  const session = useSession();
  return <Navigate to={homePathFor(session.data?.user.role)} replace />;
}
