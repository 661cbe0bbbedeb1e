/**
 * Keeper following the ensemble's dynamic configuration (issue 24 item 3), whoever changed it (a
 * resize of its own, kazoo, zkCli): a watch on /zookeeper/config through the console's session
 * (one watch, re-armed after a new session, as every watch is). On each new version:
 *   - the timeline says what changed ("member 4 added as a voter; member 1 removed");
 *   - the member poller reads the membership at once, so the ensemble and sizing views drop a
 *     removed member and show an added one;
 *   - when the members' client addresses changed, Keeper's connection string becomes the new
 *     configuration's, as the ZooKeeper client's updateServerList does, and the timeline says so.
 * At the first read (Keeper just started, from a config file that may be older than a resize), a
 * connection string that names members the configuration does not is said in the timeline and
 * follows the configuration: the membership is what the ensemble says, not what Keeper was told.
 * Only where the two name members alike (one address at least in both): a config file that names
 * hosts the ensemble knows by other names (NAT, DNS) keeps its own, which is how Keeper reaches them.
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
    if (prev === null) return this.followAtStart(next, now);
    const events = configEvents(prev, next, now);
    if (events.length === 0) return;
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

  private followAtStart(config: DynamicConfig, now: number): void {
    const ensembles = clientAddresses(config);
    if (ensembles === null) return;
    const from = this.options.gateway.connectionString;
    const ours = serversOf(from);
    const same = ours.length === ensembles.length && ensembles.every((a) => ours.includes(a));
    if (same || !ensembles.some((a) => ours.includes(a))) return;
    const to = this.options.gateway.updateServers(ensembles);
    this.options.refreshMembership();
    const left = ours.filter((a) => !ensembles.includes(a));
    this.options.log.warn({ version: config.version, from, to }, "Keeper's configuration names other members than the ensemble's: following the ensemble");
    this.options.timeline([
      {
        at: now,
        kind: 'configuration',
        text:
          `Keeper's configuration names ${from}; the ensemble's configuration version ${config.version} names ${ensembles.join(',')}` +
          `${left.length > 0 ? ` (not ${left.join(', ')})` : ''}: the connection string is now ${to}, and only the ensemble's members are counted`,
        severity: 'warning',
        member: null,
        ...(config.version === null ? {} : { configVersion: config.version }),
      },
    ]);
  }
}

/** host:port of each server in a connection string (its chroot left out). */
function serversOf(connectionString: string): string[] {
  const slash = connectionString.indexOf('/');
  return (slash === -1 ? connectionString : connectionString.slice(0, slash)).split(',').filter((s) => s !== '');
}
