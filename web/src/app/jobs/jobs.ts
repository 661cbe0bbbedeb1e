/**
 * Long operations (recursive delete, import) as the server runs them: its snapshot under
 * ['jobs', id] in the query cache, kept current by the `jobs` topic (admins only) while a view
 * shows the job, and read over HTTP when the socket cannot deliver.
 */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { ROUTES, type JobSnapshot } from '@keeper/shared';
import { call } from '../../lib/api';
import { useConnectionStatus, useTopic } from '../../socket/hooks';
import { tapTopic } from '../../socket/topicRegistry';
import { defineBinding } from '../../socket/defineBinding';
import { useIsAdmin } from '../me';

export const jobQueryKey = (id: string) => ['jobs', id] as const;

/** The ensemble's jobs as the topic last reported them, by id. */
/** Every job of the ensemble by id (admins); each job's own key is fed by the tap below. */
export interface JobsEntry {
  byId: Record<string, JobSnapshot>;
  epoch: number;
}

export const jobsBinding = defineBinding<JobsEntry>()({
  topic: 'jobs',
  queryKey: (ensemble) => ['ensembles', ensemble, 'jobs'] as const,
  reduce: (prev, event, { epoch }) => ({
    byId: { ...prev?.byId, [event.job.id]: event.job },
    epoch,
  }),
});
// Each job's own key, which the progress views and the dock read.
tapTopic('jobs', (_ensemble, _params, event, { client }) => client.setQueryData(jobQueryKey(event.job.id), event.job));

const NO_PARAMS = {};

export async function getJob(id: string): Promise<JobSnapshot> {
  return (await call(ROUTES.job, { params: { id } })).job;
}

export async function cancelJob(id: string): Promise<JobSnapshot> {
  return (await call(ROUTES.jobCancel, { params: { id } })).job;
}

/** The first snapshot (from the 202 that started it), unless the socket already brought a newer one. */
export function seedJob(client: QueryClient, job: JobSnapshot): void {
  client.setQueryData<JobSnapshot>(jobQueryKey(job.id), (prev) => prev ?? job);
}

/** Also a running job's latest snapshot when the socket is down (every second until it is back). */
export function useJob(id: string): JobSnapshot | undefined {
  const status = useConnectionStatus();
  // The jobs topic is for admins: a writer follows its own recursive delete or import over HTTP.
  const admin = useIsAdmin();
  const live = status.phase === 'live' && admin;
  const job = useQuery({
    queryKey: jobQueryKey(id),
    queryFn: () => getJob(id),
    staleTime: Infinity,
    refetchInterval: (query) => (query.state.data?.state === 'running' && !live ? 1_000 : false),
  }).data;
  useTopic('jobs', admin ? job?.ensemble : undefined, NO_PARAMS);
  return job;
}
