import { Link } from 'react-router';

export function NotFound() {
  return (
    <section className="screen">
      <h1>Page not found</h1>
      <p>This console has no screen at this address.</p>
      <p>
        <Link to="/">Go to the start page</Link>
      </p>
    </section>
  );
}
