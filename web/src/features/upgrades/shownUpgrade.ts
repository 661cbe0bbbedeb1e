/**
 * Which workflow the view shows: the live topic's, or the answer to this admin's own request when
 * it is newer (the topic's event for it may not have arrived yet). Same id: the later update
 * wins. Different ids: an active one wins over a finished one, and the topic otherwise.
 */
import { upgradeProgress, type UpgradeAnswer } from '@keeper/shared';
import { isActive } from './upgradeWords';

export function pickShown(live: UpgradeAnswer | null, own: UpgradeAnswer | null): UpgradeAnswer | null {
  if (own === null) return live;
  if (live === null) return own;
  if (live.id === own.id) return live.updatedAt >= own.updatedAt ? live : own;
  return isActive(live) || !isActive(own) ? live : own;
}

/**
 * The progress as of `serverNow`: the elapsed time and estimate keep moving between events. The
 * server's clock is estimated from when the last event was sent and how long ago it arrived, so a
 * browser clock set wrong does not show a negative or inflated elapsed time.
 */
export function progressAt(upgrade: UpgradeAnswer, serverNow: number): UpgradeAnswer {
  if (upgrade.state !== 'running' && upgrade.state !== 'paused') return upgrade;
  return { ...upgrade, progress: upgradeProgress(upgrade, Math.max(serverNow, upgrade.updatedAt)) };
}
