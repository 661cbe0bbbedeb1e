/**
 * What a read-only share link may reach: one ensemble, one znode subtree in it, and (only when
 * its creator allows it) the ensemble views: members and quorum, sessions (which carry client
 * addresses), watches. The server enforces it on every read route and on the socket; the web
 * app only uses it to hide what the holder could not open anyway.
 */
import { z } from 'zod/mini';
import { isValidPath, pathLineage } from './paths.js';
import { decodeUrlSegment, pathFromUrlSegment } from './urlPaths.js';

export const shareScopeSchema = z.object({
  ensemble: z.string(),
  /** The subtree the holder may read: this znode and everything below it. */
  root: z.string(),
  /** Members/quorum, sizing, sessions and watches of the ensemble. */
  ensembleViews: z.boolean(),
});
export type ShareScope = z.infer<typeof shareScopeSchema>;

/** What the creator may choose when making a link (the ensemble follows from the page). */
export const shareScopeChoiceSchema = z.strictObject({
  root: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  ensembleViews: z.optional(z.boolean()),
});
export type ShareScopeChoice = z.infer<typeof shareScopeChoiceSchema>;

/** The ensemble views a page path can name (after /ensembles/<name>/). */
export const ENSEMBLE_VIEW_PAGES = ['members', 'sessions', 'watches', 'sizing'] as const;

/**
 * Whether `path` is `root` or below it, on exact segment boundaries: /app/db holds /app/db/x but
 * not /app/dbx. A path that is not a valid znode path (relative segments, //, a trailing /) is
 * never within anything, so no spelling of a path can step out of its subtree.
 */
export function pathWithin(root: string, path: string): boolean {
  if (!isValidPath(root) || !isValidPath(path)) return false;
  if (root === '/' || path === root) return true;
  return path.startsWith(`${root}/`);
}

/** `znodePath`: the znode a tree page or a lock's page opens; null for the ensemble's other pages (the Locks list included). */
export interface ConsolePage {
  ensemble: string;
  view: string;
  znodePath: string | null;
}

/** Reads which ensemble (and znode) a console page path opens: /ensembles/<name>/znodes/<path>. Null for pages of no ensemble. */
export function parseConsolePage(pagePath: string): ConsolePage | null {
  const pathname = pagePath.split(/[?#]/, 1)[0] ?? '';
  const m = /^\/ensembles\/([^/]+)(?:\/([^/]*)(\/.*)?)?$/.exec(pathname);
  const ensemble = m?.[1] === undefined ? null : decodeUrlSegment(m[1]);
  if (!m || ensemble === null || ensemble === '') return null;
  const view = m[2] ?? '';
  // One lock's page (/ensembles/<name>/locks/<path>) opens a znode like a tree page: its link can be scoped to that subtree.
  const opensZnode = view === 'znodes' || (view === 'locks' && (m[3] ?? '').replace(/\/+$/, '') !== '');
  if (!opensZnode) return { ensemble, view, znodePath: null };
  const znodePath = pathFromUrlSegment((m[3] ?? '').replace(/\/+$/, ''));
  return znodePath === null ? null : { ensemble, view, znodePath };
}

export type ScopeResult = { ok: true; scope: ShareScope } | { ok: false; message: string };

/**
 * The scope of a new link to `pagePath`. A znode page: that znode's subtree by default, or one of
 * its ancestors; ensemble views off unless asked for. An ensemble view page (members, sessions…):
 * the views are what it shows, so they are on; the tree root defaults to /.
 */
export function scopeForNewLink(pagePath: string, choice: ShareScopeChoice = {}): ScopeResult {
  const page = parseConsolePage(pagePath);
  if (!page) return { ok: false, message: 'a share link opens a page of one ensemble: /ensembles/<name>/…' };
  if (page.znodePath !== null) {
    const opened = page.znodePath;
    if (!isValidPath(opened)) return { ok: false, message: `the page opens ${JSON.stringify(opened)}, which is not a znode path` };
    const root = choice.root ?? opened;
    if (!pathLineage(opened).includes(root)) return { ok: false, message: `the scope must be ${opened} or one of its ancestors, not ${JSON.stringify(root)}` };
    return { ok: true, scope: { ensemble: page.ensemble, root, ensembleViews: choice.ensembleViews ?? false } };
  }
  if (choice.ensembleViews === false)
    return { ok: false, message: `the page is an ensemble view (${page.view || 'overview'}): a link to it needs the ensemble views` };
  const root = choice.root ?? '/';
  if (!isValidPath(root)) return { ok: false, message: `${JSON.stringify(root)} is not a znode path` };
  return { ok: true, scope: { ensemble: page.ensemble, root, ensembleViews: true } };
}

/**
 * The scope of a link stored before links had one. Not today's whole-console reach: the narrowest
 * scope that still opens its page. A znode page: that subtree, no ensemble views; an ensemble
 * view page: that ensemble's views and tree; a page of no ensemble: nothing (such links were
 * never made by the console's own dialog).
 */
export function legacyScope(pagePath: string): ShareScope {
  const page = parseConsolePage(pagePath);
  if (!page) return { ensemble: '', root: '/', ensembleViews: false };
  if (page.znodePath !== null) return { ensemble: page.ensemble, root: isValidPath(page.znodePath) ? page.znodePath : '/', ensembleViews: false };
  return { ensemble: page.ensemble, root: '/', ensembleViews: true };
}

/** One line for both sides: "/app/db and below, read-only" (+ ensemble views). */
export function describeScope(scope: ShareScope): string {
  const tree = scope.root === '/' ? 'the whole tree' : `${scope.root} and below`;
  return `${tree} of ${scope.ensemble}${scope.ensembleViews ? ', plus members, sessions and watches' : ''}, read-only`;
}

/** The sentence of an OUT_OF_SCOPE refusal. */
export function outOfScopeMessage(scope: ShareScope, what: string): string {
  return `this share link reaches ${describeScope(scope)}; ${what} is outside it`;
}
