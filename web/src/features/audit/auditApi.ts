/** GET /api/audit, newest first, a page at a time (`before` = the last seq seen). */
import { useInfiniteQuery } from '@tanstack/react-query';
import { ROUTES, type AuditPage } from '@keeper/shared';
import { call } from '../../lib/api';

export const AUDIT_PAGE = 200;
export const auditQueryKey = ['audit'] as const;

export function fetchAuditPage(before: number | undefined): Promise<AuditPage> {
  return call(ROUTES.audit, { query: { limit: AUDIT_PAGE, before } });
}

export function useAuditTrail() {
  return useInfiniteQuery({
    queryKey: auditQueryKey,
    queryFn: ({ pageParam }) => fetchAuditPage(pageParam),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });
}
