/**
 * The resize's HTTP calls: plan (the preflight runs at once), start/pause/resume/abort (admins),
 * the history and one workflow (everyone), and for an admin planning, `/zookeeper/config` as
 * ZooKeeper holds it (the plan preview is computed from it with the server's own planner). Every
 * answer is parsed with the shared contract's schema; refusals come back as ApiError.
 */
import { useQuery } from '@tanstack/react-query';
import { ROUTES, type ReconfigAction, type ReconfigActionBody, type ReconfigCreateBody, type ReconfigWorkflow } from '@keeper/shared';
import { ApiError, call, errorText } from '../../../lib/api';

export const reconfigsQueryKey = (ensemble: string) => ['ensembles', ensemble, 'reconfig', 'list'] as const;
const reconfigQueryKey = (ensemble: string, id: string) => ['ensembles', ensemble, 'reconfig', 'one', id] as const;
export const configQueryKey = (ensemble: string) => ['ensembles', ensemble, 'reconfig', 'config'] as const;

export function createReconfig(ensemble: string, body: ReconfigCreateBody): Promise<ReconfigWorkflow> {
  return call(ROUTES.reconfigCreate, { params: { name: ensemble }, body });
}

export function reconfigAction(ensemble: string, id: string, action: ReconfigAction, body: ReconfigActionBody = {}): Promise<ReconfigWorkflow> {
  return call(ROUTES.reconfigAction, { params: { name: ensemble, id, action }, body });
}

export function useReconfigHistory(ensemble: string) {
  return useQuery({ queryKey: reconfigsQueryKey(ensemble), queryFn: () => call(ROUTES.reconfigs, { params: { name: ensemble } }) });
}

/** One workflow by its id (a deep link to a past resize, or an admin's full copy with the filled startCommand). */
export function useReconfig(ensemble: string, id: string | null, version: number) {
  return useQuery({
    queryKey: [...reconfigQueryKey(ensemble, id ?? ''), version],
    queryFn: () => call(ROUTES.reconfig, { params: { name: ensemble, id: id! } }),
    enabled: id !== null,
    staleTime: Infinity,
  });
}

export interface ConfigRead {
  text: string;
  /** The znode's mtime (ZooKeeper's own time of the last reconfig). */
  mtime: number;
  readAt: number;
}

/**
 * `/zookeeper/config` for the plan preview, read again whenever `key` (the last workflow's state)
 * moves. Keeper's session may be on a follower that applies a reconfig a moment after the leader
 * answered it: when the last resize verified `expectedVersion`, an older read is tried again for
 * up to 2 s before it is shown (with its version, as read).
 */
export function useConfigText(ensemble: string, enabled: boolean, key: string, expectedVersion: string | null) {
  return useQuery({
    queryKey: [...configQueryKey(ensemble), key],
    queryFn: async (): Promise<ConfigRead> => {
      for (let attempt = 0; ; attempt++) {
        const answer = await call(ROUTES.znode, { params: { name: ensemble, path: '/zookeeper/config' }, query: { limit: 1 } });
        const text = answer.data.encoding === 'base64' ? atob(answer.data.value) : answer.data.value;
        const version = /^version=(\w+)$/m.exec(text)?.[1] ?? null;
        if (expectedVersion === null || version === expectedVersion || attempt >= 8) return { text, mtime: answer.stat.mtime, readAt: Date.now() };
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    enabled,
    staleTime: Infinity,
  });
}

/** What a refused resize request says: the codes only the resize routes answer, the rest in the server's own words. */
export function resizeErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'UPGRADE_IN_PROGRESS':
        return `The ensemble is busy: one upgrade or resize at a time. ${error.message}`;
      case 'UNKNOWN_RECONFIG':
        return 'Keeper does not know this resize any more: reload the page.';
      case 'FORBIDDEN':
        return 'Only admins can plan or act on a resize.';
    }
  }
  // RECONFIG_REFUSED's message says why (the planner's reasons, the failing preflight, the missing phrase).
  return errorText(error);
}
