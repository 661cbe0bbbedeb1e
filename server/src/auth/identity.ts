/** Who is behind a request or a socket, and what that lets them do. */
import { mayWriteAt, rightsOfRole, type IdentityVia, type Rights, type Role, type ShareScope } from '@keeper/shared';

export interface Identity {
  /** A user name, "admin-token", "viewer-token", "share:<link id>", or the provider's user name. */
  name: string;
  role: Role;
  via: IdentityVia;
  /** What this identity may do; absent means exactly what `role` gives (a writer then writes nowhere). */
  rights?: Rights;
  /** The groups that decided the rights (OIDC, or a configured user's). */
  groups?: string[];
  /** Single sign-on: the provider's stable subject (`sub`), the person whatever their display name. */
  subject?: string;
  /** Cookie and share identities: the sign-in session behind the cookie (a SignInSession's id; never a ZooKeeper session). */
  signInId?: string;
  /** Share identities: the link the session is bound to (its revocation ends the session). */
  shareLinkId?: string;
  /** Share identities: what the link reaches; every read outside it is refused (OUT_OF_SCOPE). */
  shareScope?: ShareScope;
}

/** The development mode with no identity configured (loopback only): everyone is an admin. */
export const OPEN_IDENTITY: Identity = Object.freeze({ name: 'anonymous', role: 'admin', via: 'open' });

/** Admin-only actions: ACLs, locks, upgrades, share links, the audit trail, others' jobs. */
export function canMutate(identity: Identity | null | undefined): boolean {
  return identity?.role === 'admin';
}

export function rightsOf(identity: Identity): Rights {
  if (identity.rights) return identity.rights;
  return identity.role === 'admin' ? rightsOfRole('admin') : rightsOfRole('viewer');
}

/** Whether this identity may change the znode at `path` of `ensemble` (admins anywhere, writers in their subtrees). */
export function mayChange(identity: Identity | null | undefined, ensemble: string, path: string): boolean {
  if (!identity || identity.shareLinkId !== undefined) return false;
  return mayWriteAt(rightsOf(identity), ensemble, path);
}

/**
 * A stable key for the person behind an identity, whatever its display name or session: the
 * provider's subject for single sign-on, the user for a password, the token, the share link. Two
 * browsers of one person share it; two people never do (socket caps count per person by it).
 */
export function personKey(identity: Identity): string {
  if (identity.subject !== undefined) return `oidc:${identity.subject}`;
  if (identity.shareLinkId !== undefined) return `share:${identity.shareLinkId}`;
  return `${identity.via === 'share' ? 'share' : 'user'}:${identity.name}`;
}

/** The part of an identity that goes into audit entries and logs (never a session id or token). */
export function actorOf(identity: Identity | null | undefined): { name: string; role: Role | null; via: string } {
  return identity ? { name: identity.name, role: identity.role, via: identity.via } : { name: 'anonymous', role: null, via: 'none' };
}

/**
 * Why this identity may not change the znode at `path` of `ensemble`; null when it may. Said in
 * its own terms: a viewer reads only, a writer is told where it may write.
 */
export function changeRefusal(identity: Identity, ensemble: string, path: string): string | null {
  if (mayChange(identity, ensemble, path)) return null;
  const rights = rightsOf(identity);
  if (identity.shareLinkId === undefined && rights.role === 'writer') {
    const where = rights.write.map((s) => `${s.paths.join(', ')} in ${s.ensemble}`).join('; ');
    return `${identity.name} is a writer of ${where} only: ${path} in ${ensemble} is outside`;
  }
  return adminRefusal(identity);
}

/** The refusal of an admin-only action (ACLs, locks, upgrades, share links, the audit trail). */
export function adminRefusal(identity: Identity): string {
  return identity.role === 'writer'
    ? `${identity.name} is a writer: only admins may do this (writers change znodes in their subtrees only)`
    : `${identity.name} is a ${identity.role}: only admins may change anything`;
}
