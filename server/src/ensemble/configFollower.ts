/**
 * Keeper following the ensemble's dynamic configuration (issue 24 item 3), whoever changed it (a
 * resize of its own, kazoo, zkCli): a watch on /zookeeper/config through the console's session
 * (one watch, re-armed after a new session, as every watch is). On each new version:
 *   - the timeline says what changed ("member 4 added as a voter; member 1 removed");
 *   - the member poller reads the membership at once, so the ensemble and sizing views drop a
 *     removed member and show an added one;
 *   - when the members' client addresses changed, Keeper's connection string becomes the new
 *     configuration's, as the ZooKeeper client's updateServerList does, and the timeline says so.
 */
import type { Logger } from 'pino';
import { clientAddresses, configEvents, parseDynamicConfig, type DynamicConfig, type NewEnsembleEvent, type ZnodeState } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';

const CONFIG_PATH = '/zookeeper/config';

export interface ConfigFollowerOptions {
  gateway: ZkGateway;
  /** The member poller: reads the membership in its next round, which comes at once. */
  refreshMembership: () => void;
  timeline: (events: readonly NewEnsembleEvent[]) => void;
  log: Logger;
  now?: () => number;
}

export class ConfigFollower {
  private last: DynamicConfig | null = null;
  private stop: (() => void) | null = null;

  constructor(private readonly options: ConfigFollowerOptions) {}

  /** The configuration as last read (null before the first read, or on an ensemble without one). */
  get current(): DynamicConfig | null {
    return this.last;
  }

  start(): void {
    if (this.stop) return;
    this.stop = this.options.gateway.watches.watch(
      CONFIG_PATH,
      {
        onNode: (state) => this.onConfig(state),
        onChildren: () => undefined,
        onWatchEvent: () => undefined,
        // The registry retries with back-off; nothing here is judged from a failed read.
        onError: () => undefined,
        // Keeper's own watch: not one of the browsers' watched paths (their cap, the watched-paths metric).
      },
      { internal: true },
    );
  }

  close(): void {
    this.stop?.();
    this.stop = null;
  }

  private onConfig(state: ZnodeState): void {
    if (!state.exists) return;
    const text = state.data.encoding === 'base64' ? Buffer.from(state.data.value, 'base64').toString('utf8') : state.data.value;
    const next = parseDynamicConfig(text);
    // A static (3.4-style) configuration has no version: nothing to follow.
    if (next.version === null || next.members.length === 0) return;
    const prev = this.last;
    this.last = next;
    const now = (this.options.now ?? Date.now)();
    const events = configEvents(prev, next, now);
    if (events.length === 0 || prev === null) return;
    this.options.refreshMembership();
    const before = clientAddresses(prev);
    const after = clientAddresses(next);
    const moved = after !== null && (before === null || before.join(',') !== after.join(','));
    if (moved) {
      const from = this.options.gateway.connectionString;
      const to = this.options.gateway.updateServers(after);
      if (to !== from) {
        events.push({
          at: now,
          kind: 'configuration',
          text: `Keeper's connection string is now ${to} (was ${from}), from configuration version ${next.version}, as a ZooKeeper client's updateServerList does`,
          severity: 'info',
          member: null,
          configVersion: next.version,
        });
      }
    }
    this.options.log.info({ version: next.version, moved }, 'the ensemble configuration changed');
    this.options.timeline(events);
  }
}
