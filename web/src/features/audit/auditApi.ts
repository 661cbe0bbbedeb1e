/** GET /api/audit, newest first, a page at a time (`before` = the last seq seen). */
import { useInfiniteQuery } from '@tanstack/react-query';
import { auditEntrySchema, type AuditEntry } from '@keeper/shared';
import { api, fieldSchema } from '../../lib/api';

export const AUDIT_PAGE = 200;
export const auditQueryKey = ['audit'] as const;

const pageSchema = fieldSchema('entries', auditEntrySchema.array());

export async function fetchAuditPage(before: number | undefined): Promise<{ entries: AuditEntry[]; next?: number }> {
  const url = `/api/audit?limit=${AUDIT_PAGE}${before !== undefined ? `&before=${before}` : ''}`;
  const body = await api<{ entries: AuditEntry[]; next?: number }>(url);
  const parsed = pageSchema.safeParse(body);
  if (!parsed.success) throw new Error('the audit answer does not match this page’s version; reload the page');
  return { entries: parsed.data.entries, ...(typeof body.next === 'number' ? { next: body.next } : {}) };
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
