/**
 * The `znode` topic in the web: one cache entry per subscribed path holding the node's state,
 * its children and the last read failure, and the hooks the tree views use. A path's entry is
 * fed while anything on the page holds its subscription.
 */
import { useQueries } from '@tanstack/react-query';
import type { TopicParams } from '@keeper/shared';
import { socketFed, useTopic, useTopics } from '../../socket/hooks';
import { RELEASED_EPOCH } from '../../socket/topicRegistry';
import { defineBinding } from '../../socket/defineBinding';
import {
  reduceChildren,
  reduceChildrenPage,
  reduceZnode,
  type ChildrenEntry,
  type ChildrenPages,
  type SubscriptionErrorEntry,
  type ZnodeEntry,
} from './znodeEntries';

export interface ZnodeTopicEntry {
  znode?: ZnodeEntry;
  children?: ChildrenEntry;
  /** A big list arriving in pages, shown once whole. */
  childrenPages?: ChildrenPages;
  /** The last read failure; cleared by fresh data. */
  error: SubscriptionErrorEntry | null;
  epoch: number;
}

export const znodeQueryKey = (ensemble: string, path: string) => ['ensembles', ensemble, 'znodes', path] as const;

export const znodeBinding = defineBinding<ZnodeTopicEntry>()({
  topic: 'znode',
  queryKey: (ensemble, params) => znodeQueryKey(ensemble, params.path),
  reduce(prev, event, { epoch, now }, { path }) {
    const base: ZnodeTopicEntry = prev ?? { error: null, epoch };
    switch (event.kind) {
      case 'state':
        // Fresh data answers any earlier "cannot read this path".
        return { ...base, znode: reduceZnode(base.znode, path, event, epoch), error: null, epoch };
      case 'children': {
        const { childrenPages: _gathering, ...rest } = base;
        if (event.mode === 'page') {
          const { pending, whole } = reduceChildrenPage(base.childrenPages, event, epoch);
          if (!whole) return { ...rest, ...(pending ? { childrenPages: pending } : {}), epoch };
          const children = reduceChildren(base.children, whole, epoch, now);
          return children === undefined ? { ...rest, epoch } : { ...rest, children, epoch };
        }
        const children = reduceChildren(base.children, event, epoch, now);
        return children === undefined ? prev : { ...rest, children, epoch };
      }
      case 'error':
        return { ...base, error: { message: event.message, retrying: event.retrying, at: now, epoch }, epoch };
      case 'watchEvent':
        // For the watch event log (a tap): the state the event announces follows as its own event.
        return prev;
    }
  },
  refused: (prev, message, { epoch, now }) => ({
    ...(prev ?? { epoch }),
    error: { message, retrying: false, at: now, epoch },
    epoch,
  }),
  released: (prev) => ({
    ...prev,
    epoch: RELEASED_EPOCH,
    ...(prev.znode ? { znode: { ...prev.znode, epoch: RELEASED_EPOCH } } : {}),
    ...(prev.children ? { children: { ...prev.children, epoch: RELEASED_EPOCH } } : {}),
  }),
});

const params = (path: string): TopicParams<'znode'> => ({ path });

/** Subscribes to a znode (its state and its children) while the calling component is mounted. */
export function useSubscription(ensemble: string | undefined, path: string | null | undefined): void {
  useTopic('znode', ensemble, path ? params(path) : null);
}

/** Subscribes to a set of paths, e.g. every expanded tree node. */
export function useSubscriptions(ensemble: string | undefined, paths: readonly string[]): void {
  useTopics('znode', ensemble, paths.map(params));
}

function useZnodeTopicEntry(ensemble: string, path: string): ZnodeTopicEntry | undefined {
  return znodeBinding.useEntry(ensemble, params(path));
}

export function useZnodeEntry(ensemble: string, path: string): ZnodeEntry | undefined {
  return useZnodeTopicEntry(ensemble, path)?.znode;
}

export function useChildrenEntry(ensemble: string, path: string): ChildrenEntry | undefined {
  return useZnodeTopicEntry(ensemble, path)?.children;
}

export function useSubscriptionError(ensemble: string, path: string): SubscriptionErrorEntry | null {
  return useZnodeTopicEntry(ensemble, path)?.error ?? null;
}

/** The entries of many paths at once (the tree), keyed by path. */
export function useTreeEntries(
  ensemble: string,
  paths: readonly string[],
): { children: Map<string, ChildrenEntry>; znodes: Map<string, ZnodeEntry>; errors: Map<string, SubscriptionErrorEntry> } {
  return useQueries({
    queries: paths.map((p) => ({ queryKey: znodeQueryKey(ensemble, p), ...socketFed })),
    combine: (results) => {
      const children = new Map<string, ChildrenEntry>();
      const znodes = new Map<string, ZnodeEntry>();
      const errors = new Map<string, SubscriptionErrorEntry>();
      paths.forEach((p, i) => {
        const entry = results[i]?.data as ZnodeTopicEntry | undefined;
        if (entry?.children) children.set(p, entry.children);
        if (entry?.znode) znodes.set(p, entry.znode);
        if (entry?.error) errors.set(p, entry.error);
      });
      return { children, znodes, errors };
    },
  });
}
