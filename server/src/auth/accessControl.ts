/**
 * Identifies requests and sockets (bearer token, session cookie, share-link session) and ends
 * access when it must end: sign-out, session expiry, share-link revocation or expiry. Whoever
 * holds open sockets listens to 'ended' and closes the matching ones.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from './credentials.js';
import { readCookie } from './cookies.js';
import { rightsOfRole } from '@keeper/shared';
import { OPEN_IDENTITY, type Identity } from './identity.js';
import type { SignInSession, SessionStore } from './sessionStore.js';
import type { ShareLinkStore } from './shareLinks.js';

/** Which sockets to close: those of one session, or all bound to one share link. */
export type AccessEnd = { signInId: string } | { shareLinkId: string };

interface AccessEvents {
  ended: [end: AccessEnd, reason: string];
}

export type Identified = { identity: Identity; session: SignInSession | null };
export type IdentifyResult = { ok: true; value: Identified } | { ok: false; reason: string };

const SWEEP_INTERVAL_MS = 1_000;

export class AccessControl extends EventEmitter<AccessEvents> {
  private readonly timer: NodeJS.Timeout;
  /** "Sign in with <name>" when single sign-on is configured. */
  oidcName: string | null = null;

  constructor(
    /** null: the open development mode, every caller is an admin. */
    readonly credentials: Credentials | null,
    readonly sessions: SessionStore,
    readonly shareLinks: ShareLinkStore,
    readonly allowedOrigins: readonly string[] = [],
  ) {
    super();
    shareLinks.on('ended', (link, reason) => {
      this.sessions.deleteForShareLink(link.id, `share link ${reason}`);
      this.emit('ended', { shareLinkId: link.id }, `share link ${reason}`);
    });
    // Expiry must end sessions and sockets at once, not at the next request.
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  get open(): boolean {
    return this.credentials === null;
  }

  /**
   * Replicas: brings the cookie's session from the home ensemble when this replica does not hold
   * it yet, so identify() (synchronous) finds it. Throws when the home ensemble cannot say.
   */
  async prepare(headers: IncomingHttpHeaders): Promise<void> {
    if (this.credentials === null || headers.authorization !== undefined) return;
    await this.sessions.fetch(readCookie(headers.cookie));
  }

  identify(headers: IncomingHttpHeaders): IdentifyResult {
    if (this.credentials === null) return { ok: true, value: { identity: OPEN_IDENTITY, session: null } };
    const auth = headers.authorization;
    if (auth !== undefined) {
      // A wrong Authorization header is an error even when a cookie would do: scripts want to know.
      const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (!match?.[1]) return { ok: false, reason: 'Authorization must be "Bearer <token>"' };
      const principal = this.credentials.verifyToken(match[1]);
      if (!principal) return { ok: false, reason: 'the bearer token is not valid' };
      return { ok: true, value: { identity: { name: principal.name, role: principal.rights.role, rights: principal.rights, via: 'bearer' }, session: null } };
    }
    const cookie = readCookie(headers.cookie);
    const session = this.sessions.get(cookie);
    if (!session) return { ok: false, reason: this.whyNoSession(cookie) };
    const shareScope = session.shareLinkId === undefined ? undefined : this.shareLinks.scopeOf(session.shareLinkId);
    if (shareScope === null) {
      this.endSession(session.id, 'the share link has been revoked or has expired');
      return { ok: false, reason: 'the share link has been revoked or has expired' };
    }
    // Rights from the config as it is now (a share link reads only, within its scope).
    const rights = session.shareLinkId === undefined ? this.credentials.rightsOfSession(session) : rightsOfRole('viewer');
    if (rights === null) {
      const reason = `${session.name} is in no group that the grants give access to any more`;
      this.endSession(session.id, reason);
      return { ok: false, reason };
    }
    const identity: Identity = {
      name: session.name,
      role: rights.role,
      rights,
      via: session.via,
      ...(session.groups !== undefined ? { groups: session.groups } : {}),
      ...(session.subject !== undefined ? { subject: session.subject } : {}),
      signInId: session.id,
      ...(session.shareLinkId !== undefined ? { shareLinkId: session.shareLinkId } : {}),
      ...(shareScope !== undefined ? { shareScope } : {}),
    };
    return { ok: true, value: { identity, session } };
  }

  /**
   * What a browser whose cookie names no live session is told: why its session ended, while that
   * is remembered (signed out, expired, a changed token), else how to sign in.
   */
  whyNoSession(cookie: string | null): string {
    const end = cookie ? this.sessions.endOf(cookie) : null;
    if (end) return `your sign-in ended at ${new Date(end.at).toISOString()}: ${end.reason}; sign in again`;
    if (cookie) return 'this browser’s sign-in is not known to Keeper (its state directory was reset, or it was made on another Keeper); sign in again';
    return 'sign in first (POST /api/login, or open the sign-in URL Keeper printed)';
  }

  /** Replicas: a session this replica held was ended by another one: its sockets close here too. */
  endedElsewhere(signInId: string, reason: string): void {
    this.emit('ended', { signInId }, reason);
  }

  endSession(signInId: string, reason: string): void {
    if (this.sessions.delete(signInId, reason)) this.emit('ended', { signInId }, reason);
  }

  /**
   * At start-up: sessions of a previous process whose credential no longer holds (a rotated token,
   * a removed user, a changed password or role) end here, with the reason their page will show.
   */
  endRevoked(): number {
    if (this.credentials === null) return 0;
    let ended = 0;
    for (const session of this.sessions.list()) {
      const reason = this.credentials.revoked(session);
      if (reason !== null) {
        this.endSession(session.id, reason);
        ended++;
      }
    }
    return ended;
  }

  sweep(): void {
    for (const id of this.sessions.sweep()) this.emit('ended', { signInId: id }, 'session expired');
    this.shareLinks.sweep();
  }

  close(): void {
    clearInterval(this.timer);
    this.removeAllListeners();
  }
}
