/**
 * Single sign-on through an OpenID Connect provider with openid-client: discovery from the
 * issuer, the authorization code flow with PKCE (S256), state and nonce, and the ID token
 * checked by the library (signature algorithm, issuer, audience, expiry, nonce; the `iss`
 * response parameter against mix-ups). Keeper keeps nothing of the provider's tokens: it reads
 * who the person is and their groups, then starts its own session.
 *
 * Discovery is done once and kept; while the provider cannot be reached it is tried again at most
 * every 5 s (however many people press the button), each attempt with a 10 s deadline.
 */
import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import type { OidcOptions } from '../../config/types.js';
import { isLoopbackHost } from '../origin.js';
import { describeOidcFailure, OidcFailure } from './oidcFailure.js';
import type { PendingSignIn } from './pendingSignIns.js';

const DISCOVERY_TIMEOUT_SECONDS = 10;
const RETRY_AFTER_FAILURE_MS = 5_000;
/** Groups kept per person (a provider may send hundreds; the grants need only the matching ones). */
const MAX_GROUPS = 200;

export interface OidcPerson {
  /** The provider's subject, stable for the person: `<issuer>#<sub>`. */
  subject: string;
  /** What Keeper shows and audits: preferred_username, email, name or sub. */
  name: string;
  groups: string[];
}

/** http is allowed only for a provider on this machine (tests, a local Dex): tokens travel in the clear otherwise. */
export function checkIssuerUrl(issuer: string): string | null {
  const url = new URL(issuer);
  if (url.protocol === 'https:') return null;
  return isLoopbackHost(url.hostname) ? null : `auth.oidc.issuer must be https (http is allowed on loopback only): ${issuer}`;
}

export class OidcClient {
  private config: oidc.Configuration | null = null;
  private discovering: Promise<oidc.Configuration> | null = null;
  private lastFailure: { at: number; error: OidcFailure } | null = null;

  constructor(
    readonly options: OidcOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get name(): string {
    return this.options.name;
  }

  /** The provider's metadata, discovered once; an OidcFailure saying why when it cannot be had. */
  async configuration(): Promise<oidc.Configuration> {
    if (this.config) return this.config;
    if (this.lastFailure && this.now() - this.lastFailure.at < RETRY_AFTER_FAILURE_MS) throw this.lastFailure.error;
    this.discovering ??= this.discover().finally(() => (this.discovering = null));
    return this.discovering;
  }

  /** Where to send the browser, with a fresh PKCE verifier, state and nonce (kept by the caller). */
  async start(redirectUri: string): Promise<{ url: URL; secrets: Pick<PendingSignIn, 'state' | 'nonce' | 'codeVerifier'> }> {
    const config = await this.configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.options.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, secrets: { state, nonce, codeVerifier } };
  }

  /**
   * The provider's answer at the callback: checked (state, iss, code exchange with the verifier, ID
   * token) by openid-client, then the person's name and groups. Throws an OidcFailure saying why not.
   */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<OidcPerson> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new OidcFailure('OIDC_INVALID', `${this.name} sent no ID token.`);
      let groups = groupsOf(claims[this.options.groupsClaim]);
      // Some providers put groups only in userinfo (or only when asked there).
      if (groups === null && config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        groups = groupsOf(info[this.options.groupsClaim]);
      }
      return { subject: `${claims.iss}#${claims.sub}`, name: nameOf(claims, this.options.usernameClaim), groups: (groups ?? []).slice(0, MAX_GROUPS) };
    } catch (error) {
      throw describeOidcFailure(error, this.context());
    }
  }

  private context() {
    return { provider: this.name, issuer: this.options.issuer, clientId: this.options.clientId };
  }

  private async discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.options;
    try {
      const insecure = new URL(issuer).protocol === 'http:';
      const config = await oidc.discovery(
        new URL(issuer),
        clientId,
        undefined,
        clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret),
        { timeout: DISCOVERY_TIMEOUT_SECONDS, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) },
      );
      this.config = config;
      this.lastFailure = null;
      this.log.info({ issuer }, 'single sign-on provider discovered');
      return config;
    } catch (error) {
      const root = describeOidcFailure(error, this.context());
      const failure =
        root.code === 'OIDC_ISSUER' || /issuer/.test(root.detail)
          ? new OidcFailure('OIDC_ISSUER', `${this.name} describes itself as another issuer than ${issuer}: check auth.oidc.issuer.`, root.detail)
          : new OidcFailure('OIDC_UNAVAILABLE', `Keeper cannot reach ${this.name} (${issuer}) to sign you in: ${root.detail}. Tokens still work.`, root.detail);
      this.lastFailure = { at: this.now(), error: failure };
      this.log.warn({ issuer, err: root.detail }, 'single sign-on provider discovery failed');
      throw failure;
    }
  }
}

function groupsOf(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  const list = Array.isArray(value) ? value : [value];
  return list.filter((g): g is string => typeof g === 'string' && g.length > 0 && g.length <= 256);
}

function nameOf(claims: oidc.IDToken, configured: string | undefined): string {
  for (const key of [configured, 'preferred_username', 'email', 'name'].filter((k): k is string => k !== undefined)) {
    const value = claims[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 128);
  }
  return claims.sub.slice(0, 128);
}
