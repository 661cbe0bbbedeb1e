/**
 * Words for who is signed in and what went wrong signing in. Pure, so the top bar, the sign-in page
 * and their tests agree.
 */
import { rightsOfRole, type MeAnswer, type Rights } from '@keeper/shared';
import { formatAbsolute, formatAgo, formatDuration } from '../../lib/time';
import { ApiError } from '../../lib/api';

export type IdentityTone = 'admin' | 'writer' | 'viewer' | 'share';

export interface IdentityLabel {
  /** Who: the user's name, or "read-only link" for a share-link holder. */
  name: string;
  /** The badge: "admin", "viewer", "shared link · expires in 3 h". */
  badge: string;
  tone: IdentityTone;
  /** Longer words for the hover title and the menu. */
  detail: string;
}

const VIA_WORDS: Record<MeAnswer['via'], string> = {
  cookie: 'signed in on this browser',
  bearer: 'identified by a bearer token',
  share: 'opened from a read-only share link',
  open: 'no sign-in configured: every local caller is an admin',
};

export function identityLabel(me: MeAnswer, now: number): IdentityLabel {
  if (me.via === 'share' || me.shareLink) {
    const left = me.shareLink ? me.shareLink.expiresAt - now : null;
    const expiry = left === null ? '' : left <= 0 ? ' · expired' : ` · expires in ${formatDuration(left)}`;
    return { name: 'read-only link', badge: `shared link${expiry}`, tone: 'share', detail: `${VIA_WORDS.share}; you can look but not change anything` };
  }
  const tone: IdentityTone = me.role;
  const rights =
    me.role === 'admin'
      ? 'can change znodes, ACLs and share links'
      : me.role === 'writer'
        ? 'can change znodes in their subtrees only'
        : 'can look but not change anything';
  return { name: me.name, badge: me.role, tone, detail: `${VIA_WORDS[me.via]}; ${rights}` };
}

/** The "who am I" panel's account of the rights: what may be read, changed where, and what not. */
export interface RightsWords {
  read: string;
  /** Where znodes may be changed: one row per ensemble, or the whole console. */
  change: { ensemble: string | null; paths: string[] }[];
  /** What stays out of reach, in words; null for an admin. */
  not: string | null;
}

export function rightsWords(me: MeAnswer): RightsWords {
  if (me.via === 'share' || me.shareLink) {
    const scope = me.shareLink?.scope;
    return {
      read: scope
        ? `${scope.root === '/' ? 'the whole tree' : `${scope.root} and below`} of ${scope.ensemble}${scope.ensembleViews ? ', and its ensemble views' : ''}`
        : 'what the link reaches',
      change: [],
      not: 'nothing can be changed through a share link',
    };
  }
  const rights: Rights = me.rights ?? (me.role === 'admin' ? rightsOfRole('admin') : rightsOfRole('viewer'));
  if (rights.role === 'admin') return { read: 'everything', change: [{ ensemble: null, paths: ['everything'] }], not: null };
  if (rights.role === 'viewer') return { read: 'everything', change: [], not: 'nothing can be changed: ask for a writer or admin grant' };
  return {
    read: 'everything',
    change: rights.write.map((scope) => ({ ensemble: scope.ensemble, paths: scope.paths })),
    not: 'ACLs, lock cleanup, upgrades, share links and the audit trail are for admins',
  };
}

/** Only a sign-in session that a sign-out can end: bearer tokens and the open mode have nothing to end. */
export function canSignOut(me: MeAnswer): boolean {
  return me.via === 'cookie' || me.via === 'share';
}

/** Where to go after signing in: a page of this console from ?next=, never another site or /login again. */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  if (next === '/login' || next.startsWith('/login?') || next.startsWith('/login/')) return '/';
  return next;
}

/** The sign-in URL that brings the operator back to `here` afterwards. */
export function loginUrl(here: string): string {
  const next = safeNextPath(here);
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

export type SignInMethod = 'password' | 'token';

/** What to tell the operator when a sign-in fails, in their terms. */
export function signInErrorMessage(error: unknown, method: SignInMethod): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 401) {
    return method === 'password' ? 'Wrong user name or password.' : 'This token is not valid for this console.';
  }
  if (error.status === 429) {
    const wait = error.retryAfterSeconds !== null && error.retryAfterSeconds > 0 ? formatDuration(error.retryAfterSeconds * 1000) : 'a minute';
    return `Too many failed sign-ins from this address. Wait ${wait} and try again.`;
  }
  if (error.code === 'NETWORK') return 'Cannot reach the Keeper server. Check that it is running, then try again.';
  if (error.code === 'INVALID_BODY') return method === 'password' ? 'Enter both a user name and a password.' : 'Enter a token.';
  return error.message;
}

/** What the full-page message says when the server closed the socket with 4003. */
export function accessEndedWords(me: MeAnswer, reason: string | null): { title: string; text: string; canSignIn: boolean } {
  const why = (reason ?? '').toLowerCase();
  if (me.via === 'share') {
    const what = why.includes('revoked') ? 'was revoked' : why.includes('expired') ? 'has expired' : 'is no longer valid';
    return {
      title: `This read-only link ${what}`,
      text: 'Keeper stopped showing live data for it. Ask whoever shared the link for a new one.',
      canSignIn: false,
    };
  }
  if (why.includes('signed out')) {
    return {
      title: 'You were signed out',
      text: 'This browser’s session was ended (signed out here or in another tab). Sign in again to go on.',
      canSignIn: true,
    };
  }
  if (why.includes('expired')) {
    return { title: 'Your session expired', text: 'Sessions last a limited time. Sign in again to go on where you were.', canSignIn: true };
  }
  return { title: 'Your access ended', text: 'The Keeper server ended this browser’s session. Sign in again to go on.', canSignIn: true };
}

/**
 * The sign-in page's note when this browser's previous session ended while it was away (a Keeper
 * restart keeps sessions, so this is never just "Keeper restarted"): the server's reason and when.
 */
export function endedSignInWords(ended: { reason: string; at: number }, now: number): { title: string; text: string; when: string } {
  const reason = ended.reason.trim();
  const title = /expired/i.test(reason) ? 'Your session expired' : /signed out/i.test(reason) ? 'You were signed out' : 'Your sign-in was ended';
  return {
    title,
    text: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`,
    when: `${formatAgo(ended.at, now)} · ${formatAbsolute(ended.at).slice(0, 19)}`,
  };
}
