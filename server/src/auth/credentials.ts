/**
 * The configured ways to prove who you are: an admin token, a viewer token (environment or
 * config), and users with bcrypt password hashes (config); and what each may do: a role given
 * directly, or groups (a user's, or the identity provider's) matched by `auth.grants`. Tokens are
 * compared in constant time; an unknown user name costs the same bcrypt work as a known one.
 */
import bcrypt from 'bcryptjs';
import { rightsFromGroups, rightsOfRole, type Grant, type Rights } from '@keeper/shared';
import { safeEqual, sha256Hex } from './secrets.js';
import type { SignInSession } from './sessionStore.js';

export interface AuthUser {
  name: string;
  passwordHash: string;
  /** Given directly; without it, `groups` through the grants decide. */
  role?: 'admin' | 'viewer';
  groups?: string[];
}

export interface CredentialOptions {
  adminToken?: string;
  viewerToken?: string;
  users?: AuthUser[];
  grants?: Grant[];
  /** An OIDC provider is configured: someone can sign in even with no token or user. */
  oidcIssuer?: string;
}

export interface Principal {
  name: string;
  /** What this person may do; null when nothing grants anything (signed in, but no access). */
  rights: Rights | null;
  groups?: string[];
  /**
   * A fingerprint of what was proved (the token, the user's password hash), kept with the session:
   * a session whose credential was changed or removed since is ended at the next start, and says so.
   */
  credential: string;
}

/** A principal that may use the console (its rights are not null). */
export type GrantedPrincipal = Principal & { rights: Rights };

export const isGranted = (p: Principal): p is GrantedPrincipal => p.rights !== null;

/** One-way and tagged: the sessions file never holds anything that signs in. */
export const fingerprint = (what: string, secret: string): string => sha256Hex(`keeper-credential:${what}:${secret}`).slice(0, 40);

// A real hash of a random string: comparing against it takes as long as a real user's check.
const DUMMY_HASH = '$2b$10$.RkkT/nwQYveAPjTgD4k0ORVgzPkDPACEABcibR5C.INbI0d04Q1C';

export class Credentials {
  constructor(private readonly options: CredentialOptions) {}

  get configured(): boolean {
    return Boolean(this.options.adminToken || this.options.viewerToken || this.options.users?.length || this.options.oidcIssuer);
  }

  get grants(): readonly Grant[] {
    return this.options.grants ?? [];
  }

  /** A role given directly and groups through the grants: the stronger wins, writers' subtrees add up. */
  rightsFor(directRole: 'admin' | 'viewer' | undefined, groups: readonly string[] | undefined): Rights | null {
    const byGroups = groups?.length ? rightsFromGroups(groups, this.grants) : null;
    if (directRole === 'admin' || byGroups === null) return directRole ? rightsOfRole(directRole) : byGroups;
    return byGroups;
  }

  /**
   * What a live session may do now, from the config as it is (grants and users may have changed
   * since it signed in); null when nothing grants it anything any more.
   */
  rightsOfSession(session: SignInSession): Rights | null {
    if (session.method === 'password') {
      const user = this.options.users?.find((u) => u.name === session.name);
      return user ? this.rightsFor(user.role, user.groups) : null;
    }
    if (session.method === 'oidc') return this.rightsFor(undefined, session.groups ?? []);
    return session.role === 'admin' || session.role === 'viewer' ? rightsOfRole(session.role) : null;
  }

  /** What the sign-in page offers: a password form only when users are configured. */
  get methods(): { password: boolean; token: boolean } {
    return { password: Boolean(this.options.users?.length), token: Boolean(this.options.adminToken || this.options.viewerToken) };
  }

  verifyToken(token: string): GrantedPrincipal | null {
    // Both compared every time, so which token matched does not show in the timing.
    const admin = this.options.adminToken ? safeEqual(token, this.options.adminToken) : false;
    const viewer = this.options.viewerToken ? safeEqual(token, this.options.viewerToken) : false;
    if (admin) return { name: 'admin-token', rights: rightsOfRole('admin'), credential: fingerprint('token', token) };
    if (viewer) return { name: 'viewer-token', rights: rightsOfRole('viewer'), credential: fingerprint('token', token) };
    return null;
  }

  /**
   * Why a session made by a previous process may not go on, in the words its sign-in page shows;
   * null when its credential still holds. Tokens and users come from the environment and the
   * config, which a restart may have changed: a rotated token must end the sessions it opened.
   */
  revoked(session: SignInSession): string | null {
    if (session.method === 'token' || session.method === 'url') {
      const which = session.name === 'admin-token' ? 'admin' : 'viewer';
      const token = which === 'admin' ? this.options.adminToken : this.options.viewerToken;
      if (!token) return `Keeper no longer has a ${which} token configured`;
      return fingerprint('token', token) === session.credential ? null : `the ${which} token was changed since this browser signed in`;
    }
    if (session.method === 'password') {
      const user = this.options.users?.find((u) => u.name === session.name);
      if (!user) return `user ${session.name} is no longer configured`;
      if (fingerprint('password', user.passwordHash) !== session.credential) return `the password of ${session.name} was changed`;
      return null;
    }
    if (session.method === 'oidc') {
      const issuer = this.options.oidcIssuer;
      if (!issuer) return 'single sign-on is no longer configured';
      return fingerprint('oidc', issuer) === session.credential ? null : 'single sign-on now goes to another identity provider';
    }
    return null;
  }

  async verifyPassword(username: string, password: string): Promise<Principal | null> {
    const user = this.options.users?.find((u) => u.name === username);
    const ok = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH);
    if (!ok || !user) return null;
    return {
      name: user.name,
      rights: this.rightsFor(user.role, user.groups),
      ...(user.groups ? { groups: user.groups } : {}),
      credential: fingerprint('password', user.passwordHash),
    };
  }
}

export function isBcryptHash(value: string): boolean {
  return /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(value);
}

export function hashPassword(password: string, rounds = 12): Promise<string> {
  return bcrypt.hash(password, rounds);
}
