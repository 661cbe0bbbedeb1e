/**
 * Who this browser is: GET /api/me, kept under ['me']. `null` means nobody is signed in (401), so
 * the app shows the sign-in page; an admin gets write controls, a viewer or share-link holder the
 * same screens without them.
 */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { ROUTES, mayWriteAt, mayWriteIn, rightsOfRole, type MeAnswer, type Rights } from '@keeper/shared';
import { call, ApiError, setCsrfToken } from '../lib/api';

export const meQueryKey = ['me'] as const;

export async function fetchMe(): Promise<MeAnswer | null> {
  try {
    const me = await call(ROUTES.me, {});
    setCsrfToken(me.csrfToken);
    return me;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

export function useMe() {
  return useQuery({ queryKey: meQueryKey, queryFn: fetchMe, staleTime: Infinity, retry: 1 });
}

/** True for admins: the only people who see ACL, lock, upgrade, share-link and audit controls. */
export function useIsAdmin(): boolean {
  return useMe().data?.role === 'admin';
}

/** What this person may do, as the server decides it (an older server's answer: from the role). */
export function rightsOfMe(me: MeAnswer | null | undefined): Rights | null {
  if (!me) return null;
  if (me.via === 'share' || me.shareLink) return rightsOfRole('viewer');
  return me.rights ?? (me.role === 'admin' ? rightsOfRole('admin') : rightsOfRole('viewer'));
}

/** Whether the znode write controls (edit, create, delete, import) belong on this znode: admins, and writers in their subtrees. */
export function useMayWriteAt(ensemble: string, path: string): boolean {
  return mayWriteAt(rightsOfMe(useMe().data), ensemble, path);
}

/** Whether this person changes anything at all in the ensemble (a writer of another ensemble does not). */
export function useMayWriteIn(ensemble: string): boolean {
  return mayWriteIn(rightsOfMe(useMe().data), ensemble);
}

/** After sign-in: the answer of POST /api/login is the same shape as GET /api/me. */
export function setSignedIn(client: QueryClient, me: MeAnswer): void {
  setCsrfToken(me.csrfToken);
  client.setQueryData(meQueryKey, me);
}

/** Forgets everything the previous identity saw, then marks the browser as signed out. */
export function setSignedOut(client: QueryClient): void {
  setCsrfToken(null);
  client.setQueryData(meQueryKey, null);
  client.removeQueries({ predicate: (q) => q.queryKey[0] !== meQueryKey[0] });
}
