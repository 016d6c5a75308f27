/**
 * Sign-in: single sign-on when the server offers it, and always the token paste; either ends with
 * the same httpOnly session cookie. A refused single sign-on comes back here with its reason.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { SIGN_IN_ERROR_PARAM } from '@switchboard/contract/sign-in';
import { ApiError } from '../api/client';
import { explainError } from '../api/error-messages';
import { useAuthConfig, useSignIn } from '../api/session';
import { signInErrorMessage } from './sign-in-errors';
import './SignIn.css';

export function SignIn() {
  const [token, setToken] = useState('');
  const signIn = useSignIn();
  const authConfig = useAuthConfig();
  const inputId = useId();
  const errorId = useId();
  const ssoErrorId = useId();
  const location = useLocation();
  const [searchParams, setSearchParams] = useSearchParams();
  // Read once, then taken off the URL: a reload or a shared link does not repeat it.
  const [ssoError] = useState(() => signInErrorMessage(searchParams.get(SIGN_IN_ERROR_PARAM)));
  useEffect(() => {
    if (!searchParams.has(SIGN_IN_ERROR_PARAM)) return;
    const rest = new URLSearchParams(searchParams);
    rest.delete(SIGN_IN_ERROR_PARAM);
    setSearchParams(rest, { replace: true });
  }, [searchParams, setSearchParams]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    signIn.mutate(token);
  };

  const message = signIn.error ? signInMessage(signIn.error) : null;
  const oidc = authConfig.data?.oidc;
  // Back to the page the visitor came for (a deep link survives the round trip to the provider).
  const returnTo = location.pathname + location.search + location.hash;
  const ssoHref = oidc ? `${oidc.start_url}?${new URLSearchParams({ return_to: returnTo }).toString()}` : undefined;

  return (
    <main className="signin" id="main">
      <form className="signin-card" onSubmit={submit} noValidate>
        <h1>
          <span aria-hidden="true" className="brand-mark">
            ◆
          </span>{' '}
          Switchboard
        </h1>
        {ssoError && (
          <p id={ssoErrorId} className="form-error" role="alert">
            {ssoError}
          </p>
        )}
        {oidc && ssoHref && (
          <>
            <a className="btn btn-primary signin-sso" href={ssoHref} aria-describedby={ssoError ? ssoErrorId : undefined}>
              {oidc.button_label}
            </a>
            <p className="signin-or muted small">or paste an access token</p>
          </>
        )}
        {!oidc && <p className="muted">Operator console. Sign in with an access token.</p>}
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
          autoFocus={!oidc}
        />
        {message && (
          <p id={errorId} className="form-error" role="alert">
            {message}
          </p>
        )}
        <button type="submit" className={oidc ? 'btn' : 'btn btn-primary'} disabled={signIn.isPending || !token.trim()}>
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
