/** The socket's gate: Origin first (cross-site hijacking), then identity, before any handshake. */
import type { IncomingMessage } from 'node:http';
import type { UpgradeAuthorizer } from '../hub/socketHub.js';
import type { AccessControl } from './accessControl.js';
import { originAllowed } from './origin.js';

export function upgradeAuthorizer(access: AccessControl): UpgradeAuthorizer {
  return (request: IncomingMessage) => {
    if (!originAllowed(request.headers.origin, request.headers.host, access.allowedOrigins)) {
      return { ok: false, status: 403, reason: `origin ${request.headers.origin ?? ''} may not open this console's socket` };
    }
    const result = access.identify(request.headers);
    if (!result.ok) return { ok: false, status: 403, reason: result.reason };
    return { ok: true, identity: result.value.identity };
  };
}
