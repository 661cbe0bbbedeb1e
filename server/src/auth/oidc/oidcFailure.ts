/**
 * Why a single sign-on did not go through, in the operator's terms, from what openid-client (and
 * oauth4webapi under it) threw: each refusal has a code for the audit trail and a sentence for the
 * page. Nothing here decides anything: the library's checks do; this only names them.
 */
import { AuthorizationResponseError, ClientError, ResponseBodyError } from 'openid-client';

export type OidcFailureCode =
  | 'OIDC_STATE'
  | 'OIDC_REFUSED'
  | 'OIDC_CODE_REFUSED'
  | 'OIDC_ISSUER'
  | 'OIDC_AUDIENCE'
  | 'OIDC_EXPIRED'
  | 'OIDC_NONCE'
  | 'OIDC_INVALID'
  | 'OIDC_UNAVAILABLE'
  | 'NO_ACCESS';

export class OidcFailure extends Error {
  constructor(
    readonly code: OidcFailureCode,
    /** For people: what happened and what to do. */
    readonly sentence: string,
    /** For the audit trail and logs: the library's own words. */
    readonly detail: string = sentence,
  ) {
    super(sentence);
  }
}

interface Cause {
  message?: string;
  code?: string;
  cause?: unknown;
}

/** The innermost library error with its message and the details it attached ({claim, expected, claims}). */
function rootOf(error: unknown): { message: string; code?: string; details: Record<string, unknown> } {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  let code: string | undefined;
  let details: Record<string, unknown> = {};
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const c = current as Cause;
    message = c.message ?? message;
    code = c.code ?? code;
    const next = c.cause;
    if (next && typeof next === 'object' && !(next instanceof Error)) {
      details = next as Record<string, unknown>;
      break;
    }
    current = next;
  }
  return { message, ...(code ? { code } : {}), details };
}

const when = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : 'an unknown time');

/** Names a failure of the authorization response or the code exchange. */
export function describeOidcFailure(error: unknown, context: { provider: string; issuer: string; clientId: string }): OidcFailure {
  if (error instanceof OidcFailure) return error;
  if (error instanceof AuthorizationResponseError) {
    const what = `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
    return new OidcFailure('OIDC_REFUSED', `${context.provider} did not sign you in: ${what}. Sign in again, or ask whoever runs ${context.provider}.`, what);
  }
  if (error instanceof ResponseBodyError) {
    const what = `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
    if (error.error === 'invalid_grant') {
      return new OidcFailure(
        'OIDC_CODE_REFUSED',
        `${context.provider} refused the sign-in code (${what}): it was already used, has expired, or was issued to another application. Start the sign-in again.`,
        what,
      );
    }
    return new OidcFailure('OIDC_CODE_REFUSED', `${context.provider} refused to complete the sign-in (${what}).`, what);
  }
  const root = rootOf(error);
  const claim = typeof root.details.claim === 'string' ? root.details.claim : null;
  const claims = (root.details.claims ?? {}) as Record<string, unknown>;
  if (/"iss" \(issuer\)/.test(root.message) || claim === 'iss') {
    const got = claim === 'iss' ? String(claims.iss) : new URLSearchParams(String((root.details.parameters as URLSearchParams | undefined) ?? '')).get('iss');
    return new OidcFailure(
      'OIDC_ISSUER',
      `The sign-in came back from another issuer (${got ?? 'unknown'}), not ${context.issuer}: refused, as a mix-up or forged response would be.`,
      root.message,
    );
  }
  if (claim === 'aud' || claim === 'azp') {
    const aud = Array.isArray(claims.aud) ? claims.aud.join(', ') : String(claims.aud);
    return new OidcFailure(
      'OIDC_AUDIENCE',
      `The ID token was issued for another application (audience ${aud}), not Keeper (client id ${context.clientId}): refused.`,
      root.message,
    );
  }
  if (claim === 'exp' || claim === 'iat' || claim === 'nbf' || root.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') {
    return new OidcFailure(
      'OIDC_EXPIRED',
      `The ID token had expired when Keeper received it (it expired at ${when(claims.exp)}; Keeper's clock says ${new Date().toISOString()}). Sign in again; if this repeats, the clock of ${context.provider} or of Keeper is wrong.`,
      root.message,
    );
  }
  if (claim === 'nonce') {
    return new OidcFailure(
      'OIDC_NONCE',
      'The ID token was not made for this sign-in (its nonce does not match): refused. Start the sign-in again.',
      root.message,
    );
  }
  if (/"state"/.test(root.message)) {
    return new OidcFailure(
      'OIDC_STATE',
      'This sign-in answer does not belong to the sign-in this browser started (its state does not match). Start again.',
      root.message,
    );
  }
  if (error instanceof ClientError || root.code?.startsWith('OAUTH_')) {
    return new OidcFailure('OIDC_INVALID', `${context.provider} answered in a way Keeper cannot accept: ${root.message}.`, root.message);
  }
  return new OidcFailure('OIDC_UNAVAILABLE', `Keeper could not complete the sign-in with ${context.provider}: ${root.message}.`, root.message);
}
