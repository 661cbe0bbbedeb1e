/**
 * Every bound on what browsers can make the hub hold, with its default. A browser can open
 * sockets, subscribe to paths (each one a ZooKeeper watch and a cached state) and stop reading
 * (its unsent frames pile up in the server's memory): each of these is capped per socket, per
 * identity across its sockets, and in total.
 */
import type { LimitsConfig } from '../config/types.js';

/** Close code for a socket refused because its identity (or the server) has too many open: "close a tab", not "retry now". */
export { CLOSE_TOO_MANY_SOCKETS } from '@keeper/shared';
/** Close code for a browser that did not read what it was sent: it may reconnect, after a pause, and resync. */
export const CLOSE_TOO_SLOW = 1013;

export interface HubLimits {
  /** Subscriptions one socket may hold. */
  maxSubscriptions: number;
  /** Subscriptions one identity may hold across all its sockets. */
  maxSubscriptionsPerIdentity: number;
  /** Subscriptions across every socket. */
  maxSubscriptionsTotal: number;
  /** Distinct paths Keeper watches in ZooKeeper, all ensembles together. */
  maxWatchedPaths: number;
  /** Open sockets per identity (a user, a token, one share link). */
  maxSocketsPerIdentity: number;
  /** Open sockets in total. */
  maxSockets: number;
  /** Past this many unsent bytes a socket is too slow: it is closed and may reconnect and resync. */
  maxBufferedBytes: number;
  /** Unsent bytes across every socket; past it the sockets holding most are closed first. */
  maxBufferedBytesTotal: number;
  helloTimeoutMs: number;
  batchIntervalMs: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = Object.freeze({
  maxSubscriptions: 5_000,
  maxSubscriptionsPerIdentity: 10_000,
  maxSubscriptionsTotal: 100_000,
  maxWatchedPaths: 20_000,
  maxSocketsPerIdentity: 50,
  maxSockets: 500,
  maxBufferedBytes: 4 * 1024 * 1024,
  maxBufferedBytesTotal: 64 * 1024 * 1024,
  helloTimeoutMs: 10_000,
  batchIntervalMs: 25,
});

/** How often the hub adds up every socket's unsent bytes against maxBufferedBytesTotal. */
export const BUFFER_SWEEP_INTERVAL_MS = 1_000;
/** A socket closed for a cap or for being slow gets this long to finish the close handshake, then is cut. */
export const CLOSE_GRACE_MS = 2_000;

/** The hub's limits from the config file's "limits" (unset fields keep their defaults). */
export function hubLimitsFromConfig(config: LimitsConfig | undefined): HubLimits {
  const c = config ?? {};
  const set = <K extends keyof HubLimits>(key: K, value: number | undefined): Partial<HubLimits> => (value === undefined ? {} : { [key]: value });
  return {
    ...DEFAULT_HUB_LIMITS,
    ...set('maxSocketsPerIdentity', c.socketsPerIdentity),
    ...set('maxSockets', c.sockets),
    ...set('maxSubscriptions', c.subscriptionsPerSocket),
    ...set('maxSubscriptionsPerIdentity', c.subscriptionsPerIdentity),
    ...set('maxSubscriptionsTotal', c.subscriptions),
    ...set('maxWatchedPaths', c.watchedPaths),
    ...set('maxBufferedBytes', c.socketBufferKiB === undefined ? undefined : c.socketBufferKiB * 1024),
    ...set('maxBufferedBytesTotal', c.socketBuffersTotalMiB === undefined ? undefined : c.socketBuffersTotalMiB * 1024 * 1024),
  };
}
