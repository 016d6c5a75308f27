/** Sign-in: paste an access token; the server answers with an httpOnly session cookie. */
import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { explainError } from '../api/error-messages';
import { useSignIn } from '../api/session';
import './SignIn.css';

export function SignIn() {
  const [token, setToken] = useState('');
  const signIn = useSignIn();
  const inputId = useId();
  const errorId = useId();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    signIn.mutate(token);
  };

  const message = signIn.error ? signInMessage(signIn.error) : null;

  return (
    <main className="signin" id="main">
      <form className="signin-card" onSubmit={submit} noValidate>
        <h1>
          <span aria-hidden="true" className="brand-mark">
            ◆
          </span>{' '}
          Switchboard
        </h1>
        <p className="muted">Operator console. Sign in with an access token.</p>
        <label htmlFor={inputId}>Access token</label>
        <input
          id={inputId}
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="sbk_…"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={Boolean(message)}
          aria-describedby={message ? errorId : undefined}
          autoFocus
        />
        {message && (
          <p id={errorId} className="form-error" role="alert">
            {message}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={signIn.isPending || !token.trim()}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">
          The first start of the server prints a bootstrap token. Create more with <code>npm run token -- create</code>.
        </p>
      </form>
    </main>
  );
}

function signInMessage(error: unknown): string {
  if (error instanceof ApiError && error.code === 'UNAUTHENTICATED') {
    return 'That token was not accepted: it is unknown or has been revoked. Check that you pasted the whole token.';
  }
  const e = explainError(error);
  return `${e.title}. ${e.hint}`;
}
