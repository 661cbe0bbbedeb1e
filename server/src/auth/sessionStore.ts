/**
 * Server-side sessions behind the cookie: the cookie holds a random id and nothing else, so a
 * session ends the moment it is deleted here (sign-out, share-link revocation, expiry). Kept in
 * memory: a restart signs browsers out, which they survive by signing in again.
 */
import type { Role } from '@keeper/shared';
import { randomToken } from './secrets.js';

export interface Session {
  id: string;
  name: string;
  role: Role;
  /** 'cookie' for a sign-in (password or token), 'share' for a share link. */
  via: 'cookie' | 'share';
  csrfToken: string;
  /** The signed-in hint cookie's value: finds this session for display, grants nothing. */
  hint: string;
  createdAt: number;
  expiresAt: number;
  shareLinkId?: string;
}

export type NewSession = Pick<Session, 'name' | 'role' | 'via'> & { shareLinkId?: string; expiresAt?: number };

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly byHint = new Map<string, string>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxSessions = 10_000,
  ) {}

  create(spec: NewSession): Session {
    const at = this.now();
    const session: Session = {
      id: randomToken(),
      name: spec.name,
      role: spec.role,
      via: spec.via,
      csrfToken: randomToken(24),
      hint: randomToken(18),
      createdAt: at,
      // A share session never outlives its link.
      expiresAt: Math.min(at + this.ttlMs, spec.expiresAt ?? Number.POSITIVE_INFINITY),
      ...(spec.shareLinkId !== undefined ? { shareLinkId: spec.shareLinkId } : {}),
    };
    if (this.sessions.size >= this.maxSessions) this.evictOldest();
    this.sessions.set(session.id, session);
    this.byHint.set(session.hint, session.id);
    return session;
  }

  /** The live session a signed-in hint cookie names, or null. */
  byHintValue(hint: string | null | undefined): Session | null {
    if (!hint) return null;
    return this.get(this.byHint.get(hint));
  }

  /** The live session for a cookie value, or null (unknown or expired: an expired one is dropped). */
  get(id: string | null | undefined): Session | null {
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= this.now()) {
      this.delete(id);
      return null;
    }
    return session;
  }

  delete(id: string): Session | null {
    const session = this.sessions.get(id) ?? null;
    this.sessions.delete(id);
    if (session) this.byHint.delete(session.hint);
    return session;
  }

  /** Ends every session bound to a share link; returns their ids. */
  deleteForShareLink(linkId: string): string[] {
    const ended: string[] = [];
    for (const [id, s] of this.sessions) {
      if (s.shareLinkId === linkId) {
        this.delete(id);
        ended.push(id);
      }
    }
    return ended;
  }

  /** Drops expired sessions; returns their ids so sockets opened with them can be closed. */
  sweep(): string[] {
    const now = this.now();
    const ended: string[] = [];
    for (const [id, s] of this.sessions) {
      if (s.expiresAt <= now) {
        this.delete(id);
        ended.push(id);
      }
    }
    return ended;
  }

  get size(): number {
    return this.sessions.size;
  }

  private evictOldest(): void {
    const oldest = this.sessions.keys().next().value;
    if (oldest !== undefined) this.delete(oldest);
  }
}
