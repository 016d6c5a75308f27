/**
 * Finds the OpenID provider at start. A wrong or unreachable issuer stops the server with one line
 * naming it (like an unreachable database), rather than a sign-in button that fails later.
 */
import * as client from 'openid-client';
import type { OidcConfig } from '../../config';

/** Long enough for a slow provider, short enough that a start against a black hole gives up. */
const DISCOVERY_TIMEOUT_S = 10;

export class OidcIssuerUnreachableError extends Error {
  constructor(
    readonly issuer: string,
    readonly reason: string,
  ) {
    super(`cannot discover the OpenID Connect issuer ${issuer}: ${reason}`);
    this.name = 'OidcIssuerUnreachableError';
  }
}

/** The innermost useful words of a failed discovery ("fetch failed" alone names nothing). */
function reasonOf(err: unknown): string {
  const parts: string[] = [];
  let at: unknown = err;
  while (at instanceof Error && parts.length < 4) {
    const code = (at as NodeJS.ErrnoException).code;
    const words = at.message.replace(/\s+/g, ' ').trim();
    parts.push(code && !words.includes(code) && !code.startsWith('OAUTH_') ? `${words} (${code})` : words);
    at = at.cause;
  }
  if (at instanceof Response) parts.push(`HTTP ${at.status} from ${at.url}`);
  return parts.filter(Boolean).join(': ') || String(err);
}

export async function discoverIssuer(config: OidcConfig): Promise<client.Configuration> {
  // http is accepted only for localhost (config.ts checks), for development and tests.
  const insecure = new URL(config.issuer).protocol === 'http:';
  try {
    return await client.discovery(new URL(config.issuer), config.clientId, { client_secret: config.clientSecret }, client.ClientSecretBasic(config.clientSecret), {
      timeout: DISCOVERY_TIMEOUT_S,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (err) {
    throw new OidcIssuerUnreachableError(config.issuer, reasonOf(err));
  }
}
