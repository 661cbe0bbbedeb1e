/**
 * The `upgrade` topic in the web: the server sends the ensemble's current (or last) upgrade
 * workflow whole after every change, so the entry is simply the latest one, with the socket epoch
 * it came on (freshness), the server time it was sent at and the browser time it arrived (so the
 * elapsed time keeps ticking between events without trusting the browser's clock for the start).
 */
import type { UpgradeAnswer } from '@keeper/shared';
import { useTopic } from '../../socket/hooks';
import { RELEASED_EPOCH } from '../../socket/topicRegistry';
import { defineBinding } from '../../socket/defineBinding';

export type UpgradeEntry =
  { kind: 'upgrade'; upgrade: UpgradeAnswer | null; at: number; receivedAt: number; epoch: number } | { kind: 'refused'; message: string; epoch: number };

export const upgradeQueryKey = (ensemble: string) => ['ensembles', ensemble, 'upgrade'] as const;

export const upgradeBinding = defineBinding<UpgradeEntry>()({
  topic: 'upgrade',
  queryKey: (ensemble) => upgradeQueryKey(ensemble),
  reduce: (_prev, event, { epoch, now }) => ({
    kind: 'upgrade',
    upgrade: event.upgrade,
    at: event.at,
    receivedAt: now,
    epoch,
  }),
  refused: (_prev, message, { epoch }) => ({ kind: 'refused', message, epoch }),
  released: (prev) => ({ ...prev, epoch: RELEASED_EPOCH }),
});

const NO_PARAMS = {};

/** Holds the `upgrade` subscription while mounted and reads its latest snapshot. */
export function useUpgradeEntry(ensemble: string): UpgradeEntry | undefined {
  useTopic('upgrade', ensemble, NO_PARAMS);
  return upgradeBinding.useEntry(ensemble, NO_PARAMS);
}
