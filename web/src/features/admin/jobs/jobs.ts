/**
 * Long operations (recursive delete, import) as the server runs them: its snapshot under
 * ['jobs', id] in the query cache, kept current by the socket's `job` events (admins' sockets
 * get them) and read over HTTP when the socket cannot deliver.
 */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { jobSnapshotSchema, type JobSnapshot } from '@keeper/shared';
import { api, fieldSchema } from '../../../lib/api';
import { useConnectionStatus } from '../../../socket/hooks';

/** The key applyServerEvents writes job events under. */
export const jobQueryKey = (id: string) => ['jobs', id] as const;

export async function getJob(id: string): Promise<JobSnapshot> {
  return (await api(`/api/jobs/${encodeURIComponent(id)}`, { schema: fieldSchema('job', jobSnapshotSchema) })).job;
}

export async function cancelJob(id: string): Promise<JobSnapshot> {
  return (await api(`/api/jobs/${encodeURIComponent(id)}`, { method: 'DELETE', schema: fieldSchema('job', jobSnapshotSchema) })).job;
}

/** The first snapshot (from the 202 that started it), unless the socket already brought a newer one. */
export function seedJob(client: QueryClient, job: JobSnapshot): void {
  client.setQueryData<JobSnapshot>(jobQueryKey(job.id), (prev) => prev ?? job);
}

/** Also a running job's latest snapshot when the socket is down (every second until it is back). */
export function useJob(id: string): JobSnapshot | undefined {
  const status = useConnectionStatus();
  const live = status.phase === 'live';
  return useQuery({
    queryKey: jobQueryKey(id),
    queryFn: () => getJob(id),
    staleTime: Infinity,
    refetchInterval: (query) => (query.state.data?.state === 'running' && !live ? 1_000 : false),
  }).data;
}
