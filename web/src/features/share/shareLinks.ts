/**
 * Read-only share links (admins): the API calls, the expiry choices, and what state a link is in.
 * The link's URL holds its token and is shown once, right after it is made.
 */
import { ROUTES, parseConsolePage, pathLineage, type ShareLinkView, type ShareScope, type ShareScopeChoice } from '@keeper/shared';
import { call } from '../../lib/api';

export const shareLinksQueryKey = ['shareLinks'] as const;

export const EXPIRY_CHOICES = [
  { label: '1 h', minutes: 60 },
  { label: '8 h', minutes: 8 * 60 },
  { label: '24 h', minutes: 24 * 60 },
  { label: '7 d', minutes: 7 * 24 * 60 },
] as const;

export const DEFAULT_EXPIRY_MINUTES = 8 * 60;

export type CreatedShareLink = ShareLinkView & { url: string };

export function createShareLink(body: { path: string; expiresInMinutes: number; note?: string; scope?: ShareScopeChoice }): Promise<CreatedShareLink> {
  return call(ROUTES.shareLinkCreate, { body });
}

export async function listShareLinks(): Promise<ShareLinkView[]> {
  return (await call(ROUTES.shareLinks, {})).links;
}

export function revokeShareLink(id: string): Promise<ShareLinkView> {
  return call(ROUTES.shareLinkRevoke, { params: { id } });
}

/** What a shared page is: the console path people will land on, without a sign-in token. */
export function sharablePath(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete('token');
  const rest = params.toString();
  return rest === '' ? pathname : `${pathname}?${rest}`;
}

/** Pages only admins may see: a share link (a viewer session) to them would show nothing. */
export function isAdminOnlyPage(pathname: string): boolean {
  return pathname === '/audit' || pathname.startsWith('/audit/');
}

export type LinkState = { word: 'active' | 'ending soon' | 'expired' | 'revoked'; tone: 'live' | 'degraded' | 'stale' };

const HOUR = 60 * 60 * 1000;

/** "Ending soon" in the last tenth of a link's life, at most its last hour: 6 min of a 1 h link, 1 h of a 7 d one. */
export function linkState(link: Pick<ShareLinkView, 'createdAt' | 'expiresAt' | 'revokedAt'>, now: number): LinkState {
  if (link.revokedAt !== undefined) return { word: 'revoked', tone: 'stale' };
  if (link.expiresAt <= now) return { word: 'expired', tone: 'stale' };
  const soon = Math.min(HOUR, (link.expiresAt - link.createdAt) / 10);
  if (link.expiresAt - now <= soon) return { word: 'ending soon', tone: 'degraded' };
  return { word: 'active', tone: 'live' };
}

/** Active links first (soonest to end first), then ended ones, most recent first. */
export function sortLinks(links: readonly ShareLinkView[], now: number): ShareLinkView[] {
  const ended = (l: ShareLinkView) => l.revokedAt !== undefined || l.expiresAt <= now;
  return [...links].sort((a, b) => {
    const ea = ended(a);
    const eb = ended(b);
    if (ea !== eb) return ea ? 1 : -1;
    if (!ea) return a.expiresAt - b.expiresAt;
    return (b.revokedAt ?? b.expiresAt) - (a.revokedAt ?? a.expiresAt);
  });
}

/**
 * What the creator may pick as the reach of a link to this page: for a znode, the znode itself
 * (first, the default) and each ancestor up to /; for an ensemble view, the whole tree only, with
 * the ensemble views always on (the page is one). Null for a page of no ensemble.
 */
export function scopeOptions(pagePath: string): { ensemble: string; roots: string[]; viewsRequired: boolean } | null {
  const page = parseConsolePage(pagePath);
  if (!page) return null;
  if (page.znodePath === null) return { ensemble: page.ensemble, roots: ['/'], viewsRequired: true };
  return { ensemble: page.ensemble, roots: pathLineage(page.znodePath).reverse(), viewsRequired: false };
}

/** The holder's frame line: "Shared view: /app/db and below, read-only". */
export function holderBanner(scope: ShareScope): string {
  const tree = scope.root === '/' ? `all of ${scope.ensemble}` : `${scope.root} and below`;
  return `Shared view: ${tree}${scope.ensembleViews ? ', with members, sessions and watches' : ''}, read-only`;
}

/** Which left-nav views a share holder can open: the tree always; the ensemble views only when the link allows them. */
export function holderMayOpen(scope: ShareScope, navId: string): boolean {
  if (navId === 'tree') return true;
  if (navId === 'ensemble' || navId === 'sessions' || navId === 'watches' || navId === 'locks' || navId === 'upgrades') return scope.ensembleViews;
  return false;
}
