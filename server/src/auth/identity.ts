/** Who is behind a request or a socket, and what that lets them do. */
import type { IdentityVia, Role, ShareScope } from '@keeper/shared';

export interface Identity {
  /** A user name, "admin-token", "viewer-token", or "share:<link id>". */
  name: string;
  role: Role;
  via: IdentityVia;
  /** Cookie and share identities: the server-side session behind the cookie. */
  sessionId?: string;
  /** Share identities: the link the session is bound to (its revocation ends the session). */
  shareLinkId?: string;
  /** Share identities: what the link reaches; every read outside it is refused (OUT_OF_SCOPE). */
  shareScope?: ShareScope;
}

/** The development mode with no identity configured (loopback only): everyone is an admin. */
export const OPEN_IDENTITY: Identity = Object.freeze({ name: 'anonymous', role: 'admin', via: 'open' });

export function canMutate(identity: Identity | null | undefined): boolean {
  return identity?.role === 'admin';
}

/** The part of an identity that goes into audit entries and logs (never a session id or token). */
export function actorOf(identity: Identity | null | undefined): { name: string; role: Role | null; via: string } {
  return identity ? { name: identity.name, role: identity.role, via: identity.via } : { name: 'anonymous', role: null, via: 'none' };
}
