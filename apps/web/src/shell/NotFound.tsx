import { Link } from 'react-router';
import { homePath } from '../routes';

export function NotFound() {
  return (
    <section className="screen">
      <h1>Page not found</h1>
      <p>This console has no screen at this address.</p>
      <p>
        <Link to={homePath}>Go to incidents</Link>
      </p>
    </section>
  );
}
