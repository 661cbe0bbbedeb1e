/**
 * The "go to path" box, without React: what the typed text means (a path, or a Keeper URL pasted
 * from an incident channel), whose children complete its last segment, and which children match.
 * A share link's holder is never offered, nor made to list, anything outside its scope: above the
 * scope root the only completion is the way into it.
 */
import { checkPath, joinPath, pathWithin } from '@keeper/shared';
import { parseZnodeLocation } from '../../../app/urls/treeUrls';

/** Completions shown at once; the rest are counted ("12 more: type on"). */
export const SHOWN_COMPLETIONS = 50;

/** A pasted Keeper URL (…/ensembles/x/znodes/a/b) stands for its znode path; anything else is taken as a path, a leading / added. */
export function typedPath(text: string): string {
  const trimmed = text.trim();
  const url = /^(?:https?:\/\/[^/]+)?(\/ensembles\/[^?#]*)/.exec(trimmed)?.[1];
  const fromUrl = url ? parseZnodeLocation(url)?.path : undefined;
  if (fromUrl !== undefined) return fromUrl;
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

export type CompletionSource =
  /** List this znode's children and match the partial last segment against them. */
  | { kind: 'children'; parent: string; partial: string }
  /** Above a share link's scope: the scope root is the only way on, if the text leads to it. */
  | { kind: 'scopeRoot'; root: string; leadsThere: boolean };

/** Where completions come from for the text typed so far. */
export function completionSource(text: string, scopeRoot = '/'): CompletionSource {
  const path = typedPath(text);
  const cut = path.lastIndexOf('/');
  const parent = cut <= 0 ? '/' : path.slice(0, cut);
  const partial = path.slice(cut + 1);
  if (pathWithin(scopeRoot, parent)) return { kind: 'children', parent, partial };
  return { kind: 'scopeRoot', root: scopeRoot, leadsThere: scopeRoot.toLowerCase().startsWith(path.toLowerCase()) };
}

/** Children matching the partial segment, case-insensitively: those starting with it first, then those containing it, each in the list's own order. */
export function matchCompletions(parent: string, names: readonly string[], partial: string, limit = SHOWN_COMPLETIONS): { paths: string[]; total: number } {
  const q = partial.toLowerCase();
  const starting: string[] = [];
  const containing: string[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    if (lower.startsWith(q)) starting.push(name);
    else if (lower.includes(q)) containing.push(name);
  }
  const all = starting.length >= limit ? starting : [...starting, ...containing];
  return { paths: all.slice(0, limit).map((name) => joinPath(parent, name)), total: starting.length + containing.length };
}

/** The box's text with a completion filled in: the child's path and a slash, so its own children come next. */
export function completed(path: string): string {
  return path === '/' ? '/' : `${path}/`;
}

/** Where Enter goes: the path typed (a trailing slash dropped), or why it cannot be opened. */
export function goToTarget(text: string, scopeRoot = '/'): { ok: true; path: string } | { ok: false; reason: string } {
  const path = typedPath(text).replace(/(.)\/+$/, '$1');
  const check = checkPath(path);
  if (!check.ok) return { ok: false, reason: check.reason };
  if (!pathWithin(scopeRoot, path)) return { ok: false, reason: `outside this link's scope: ${scopeRoot} and below` };
  return { ok: true, path };
}
