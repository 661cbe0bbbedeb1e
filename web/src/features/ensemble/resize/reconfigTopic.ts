/**
 * The `reconfig` topic in the web: the server sends the ensemble's current (or last) resize whole
 * after every change, so the entry is the latest one, with the socket epoch it came on
 * (freshness), the server time it was sent at and the browser time it arrived.
 */
import type { ReconfigWorkflow } from '@keeper/shared';
import { useTopic } from '../../../socket/hooks';
import { RELEASED_EPOCH } from '../../../socket/topicRegistry';
import { defineBinding } from '../../../socket/defineBinding';

export type ReconfigEntry =
  { kind: 'reconfig'; reconfig: ReconfigWorkflow | null; at: number; receivedAt: number; epoch: number } | { kind: 'refused'; message: string; epoch: number };

export const reconfigQueryKey = (ensemble: string) => ['ensembles', ensemble, 'reconfig', 'live'] as const;

export const reconfigBinding = defineBinding<ReconfigEntry>()({
  topic: 'reconfig',
  queryKey: (ensemble) => reconfigQueryKey(ensemble),
  reduce: (_prev, event, { epoch, now }) => ({ kind: 'reconfig', reconfig: event.reconfig, at: event.at, receivedAt: now, epoch }),
  refused: (_prev, message, { epoch }) => ({ kind: 'refused', message, epoch }),
  released: (prev) => ({ ...prev, epoch: RELEASED_EPOCH }),
});

const NO_PARAMS = {};

/** Holds the `reconfig` subscription while mounted and reads its latest snapshot. */
export function useReconfigEntry(ensemble: string): ReconfigEntry | undefined {
  useTopic('reconfig', ensemble, NO_PARAMS);
  return reconfigBinding.useEntry(ensemble, NO_PARAMS);
}
