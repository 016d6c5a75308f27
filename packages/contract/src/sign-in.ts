/**
 * Browser sign-in outside JSON-RPC: what GET /v1/auth/config tells the console, and the reasons a
 * single sign-on callback sends the browser back to the sign-in screen (as `?sign_in_error=<code>`;
 * the console words them, so a crafted link cannot put text of its choosing on the page).
 */

/** GET /v1/auth/config (no authentication needed). */
export interface AuthConfig {
  /** OpenID Connect sign-in, when the server is configured for it. */
  oidc: { start_url: string; button_label: string } | null;
}

export const SIGN_IN_ERROR_PARAM = 'sign_in_error';

export const SIGN_IN_ERROR_CODES = [
  /** The required claim value (e.g. a group) is missing. */
  'not_allowed',
  /** No claim value maps to a role, and there is no default role. */
  'no_role',
  /** The person exists in Switchboard and an administrator disabled them. */
  'user_disabled',
  /** The provider would demote the last enabled admin, which Switchboard refuses. */
  'last_admin',
  /** The person cancelled at the provider, or the provider refused. */
  'provider_refused',
  /** The sign-in began too long ago, in another browser, or was started elsewhere (state mismatch). */
  'expired',
  /** The exchange with the provider failed (network, invalid answer). */
  'failed',
] as const;
export type SignInErrorCode = (typeof SIGN_IN_ERROR_CODES)[number];

/** POST /v1/auth/logout: where the browser goes next to end the provider's session too, if anywhere. */
export interface SignOutAnswer {
  ok: true;
  end_session_url?: string;
}
