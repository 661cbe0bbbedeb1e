/**
 * The socket's gate, before any handshake: the Host (DNS rebinding), the Origin (cross-site
 * hijacking), then the identity. A bearer header on the upgrade is a token guess until it
 * verifies: a correct one always passes, a wrong one meets the sign-in limiter and is audited,
 * as over HTTP.
 */
import type { IncomingMessage } from 'node:http';
import type { AccessControl } from './accessControl.js';
import type { Identity } from './identity.js';
import { checkHost } from './hosts.js';
import { originAllowed } from './origin.js';
import type { SignInGuard } from './signInAudit.js';

/**
 * Decides whether an upgrade may proceed, before the handshake: who is asking (cookie, bearer,
 * share session) and from which Origin. Without one, every socket is the open-mode admin.
 */
export type UpgradeVerdict = { ok: true; identity: Identity; person: string } | { ok: false; status: 401 | 403 | 503; reason: string };
export type UpgradeAuthorizer = (request: IncomingMessage) => UpgradeVerdict | Promise<UpgradeVerdict>;

/**
 * Which person a socket belongs to, for caps and rates counted per person: a browser's sign-in
 * session (cookie or share link; with SSO, still one per browser), or for a bearer token (no
 * session) that token from one address. Everyone holding the viewer token is one identity but
 * as many persons as browsers, so one of them cannot use up what the others need.
 */
export function personOf(identity: Identity, address: string): string {
  if (identity.via === 'open') return 'open';
  if (identity.signInId !== undefined) return `session:${identity.signInId}`;
  return `${identity.via}:${identity.role}:${identity.name}@${address}`;
}

export interface SocketGateOptions {
  /** Host names this console answers to (hosts.ts). */
  allowedHosts?: ReadonlySet<string>;
  guard?: SignInGuard;
  /** The client's address (X-Forwarded-For behind a trusted proxy). */
  addressOf?: (request: IncomingMessage) => string;
}

export function socketGate(access: AccessControl, options: SocketGateOptions = {}): UpgradeAuthorizer {
  const addressOf = options.addressOf ?? ((request: IncomingMessage) => request.socket.remoteAddress ?? 'unknown');
  return async (request: IncomingMessage): Promise<UpgradeVerdict> => {
    if (options.allowedHosts) {
      const host = checkHost(request.headers.host, options.allowedHosts);
      if (!host.ok) return { ok: false, status: 403, reason: host.reason };
    }
    if (!originAllowed(request.headers.origin, request.headers.host, access.allowedOrigins)) {
      return { ok: false, status: 403, reason: `origin ${request.headers.origin ?? ''} may not open this console's socket` };
    }
    const guard = options.guard;
    const attempt =
      guard && access.credentials !== null && request.headers.authorization !== undefined
        ? { address: addressOf(request), name: 'token', method: 'bearer' as const, transport: 'socket' as const }
        : null;
    try {
      // Replicas: a session made on another replica is read from the home ensemble first.
      await access.prepare(request.headers);
    } catch {
      return { ok: false, status: 503, reason: 'the home ensemble holding the replicas’ sign-ins cannot be reached; retry in a moment' };
    }
    // A correct token always passes; only a wrong one meets the limiter.
    const result = access.identify(request.headers);
    if (!result.ok) {
      if (guard && attempt) {
        const refused = guard.refusal(attempt);
        if (refused) return { ok: false, status: 403, reason: `too many failed sign-ins from this address; retry in ${refused.retryAfterSeconds} s` };
        // Recorded in the background: the gate answers at once; the entry is durable soon after.
        void guard.failed(attempt, result.reason);
      }
      return { ok: false, status: 403, reason: result.reason };
    }
    const identity = result.value.identity;
    return { ok: true, identity, person: personOf(identity, addressOf(request)) };
  };
}
