/**
 * Every bound on what browsers can make the hub hold, with its default. A browser can open
 * sockets, subscribe to paths (each one a ZooKeeper watch and a cached state), subscribe again and
 * again (each answered with the current state), and stop reading (what it is sent waits in the
 * server's memory): each of these is capped per socket, per person, per identity, and in total,
 * with room kept for admins and share links pooled.
 *
 * A person is one browser's sign-in (its session cookie, for a token or a share link alike) or,
 * for a script with a bearer token, that token from one address. An identity is what signed in:
 * a user, a token (shared by everyone who holds it), one share link.
 */
import type { LimitsConfig } from '../config/types.js';

/** Close code for a socket refused because its identity (or the server) has too many open: "close a tab", not "retry now". */
export { CLOSE_TOO_MANY_SOCKETS } from '@keeper/shared';
/** Close code for a browser that did not read what it was sent: it may reconnect, after a pause, and resync. */
export const CLOSE_TOO_SLOW = 1013;

export interface HubLimits {
  /** Subscriptions one socket may hold. */
  maxSubscriptions: number;
  /** Subscriptions one person may hold across its sockets. */
  maxSubscriptionsPerPerson: number;
  /** Subscriptions one identity (a token shared by many people) may hold across its sockets. */
  maxSubscriptionsPerIdentity: number;
  /** Subscriptions of every share link together. */
  maxSubscriptionsForShareLinks: number;
  /** Of the total, subscriptions only admins may take. */
  subscriptionsReservedForAdmins: number;
  /** Subscriptions across every socket. */
  maxSubscriptionsTotal: number;
  /** Distinct paths Keeper watches in ZooKeeper, all ensembles together. */
  maxWatchedPaths: number;
  /** Subscribe frames per second one socket may send (each replays the current state), weighted by topic (subscribeRate.ts); bursts of 5 s. */
  subscribesPerSecond: number;
  /** The same for one person across its sockets. */
  subscribesPerSecondPerPerson: number;
  /** Open sockets per person (a browser's tabs). */
  maxSocketsPerPerson: number;
  /** Open sockets per identity (a user, a token, one share link). */
  maxSocketsPerIdentity: number;
  /** Open sockets of every share link together. */
  maxSocketsForShareLinks: number;
  /** Of the total, sockets only admins may open. */
  socketsReservedForAdmins: number;
  /** Open sockets in total. */
  maxSockets: number;
  /**
   * Unsent bytes one socket may hold. A frame goes out only if it fits; what does not fit waits,
   * and past as much again waiting the socket's events are dropped and it is told to resync.
   * Also the largest single event: a bigger one is refused with `tooLarge`.
   */
  maxBufferedBytes: number;
  /** Unsent bytes across every socket (a frame shared by many sockets counts once). */
  maxBufferedBytesTotal: number;
  /** A socket holding unsent bytes that takes none of them for this long is closed as too slow. */
  stallMs: number;
  helloTimeoutMs: number;
  batchIntervalMs: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = Object.freeze({
  maxSubscriptions: 5_000,
  maxSubscriptionsPerPerson: 10_000,
  maxSubscriptionsPerIdentity: 150_000,
  maxSubscriptionsForShareLinks: 50_000,
  subscriptionsReservedForAdmins: 20_000,
  maxSubscriptionsTotal: 200_000,
  maxWatchedPaths: 20_000,
  subscribesPerSecond: 200,
  subscribesPerSecondPerPerson: 400,
  maxSocketsPerPerson: 30,
  maxSocketsPerIdentity: 1_500,
  maxSocketsForShareLinks: 500,
  socketsReservedForAdmins: 100,
  maxSockets: 2_000,
  maxBufferedBytes: 4 * 1024 * 1024,
  maxBufferedBytesTotal: 64 * 1024 * 1024,
  stallMs: 15_000,
  helloTimeoutMs: 10_000,
  batchIntervalMs: 25,
});

/** How often the hub looks for stalled sockets and adds up unsent bytes against maxBufferedBytesTotal. */
export const BUFFER_SWEEP_INTERVAL_MS = 1_000;
/** A socket closed for a cap or for being slow gets this long to finish the close handshake, then is cut. */
export const CLOSE_GRACE_MS = 2_000;

/** The hub's limits from the config file's "limits" (unset fields keep their defaults). */
export function hubLimitsFromConfig(config: LimitsConfig | undefined): HubLimits {
  const c = config ?? {};
  const set = <K extends keyof HubLimits>(key: K, value: number | undefined): Partial<HubLimits> => (value === undefined ? {} : { [key]: value });
  return {
    ...DEFAULT_HUB_LIMITS,
    ...set('maxSocketsPerPerson', c.socketsPerPerson),
    ...set('maxSocketsPerIdentity', c.socketsPerIdentity),
    ...set('maxSocketsForShareLinks', c.socketsForShareLinks),
    ...set('socketsReservedForAdmins', c.socketsReservedForAdmins),
    ...set('maxSockets', c.sockets),
    ...set('maxSubscriptions', c.subscriptionsPerSocket),
    ...set('maxSubscriptionsPerPerson', c.subscriptionsPerPerson),
    ...set('maxSubscriptionsPerIdentity', c.subscriptionsPerIdentity),
    ...set('maxSubscriptionsForShareLinks', c.subscriptionsForShareLinks),
    ...set('subscriptionsReservedForAdmins', c.subscriptionsReservedForAdmins),
    ...set('maxSubscriptionsTotal', c.subscriptions),
    ...set('subscribesPerSecond', c.subscribesPerSecond),
    ...set('subscribesPerSecondPerPerson', c.subscribesPerSecondPerPerson),
    ...set('maxWatchedPaths', c.watchedPaths),
    ...set('maxBufferedBytes', c.socketBufferKiB === undefined ? undefined : c.socketBufferKiB * 1024),
    ...set('maxBufferedBytesTotal', c.socketBuffersTotalMiB === undefined ? undefined : c.socketBuffersTotalMiB * 1024 * 1024),
    ...set('stallMs', c.socketStallSeconds === undefined ? undefined : c.socketStallSeconds * 1000),
  };
}
