/**
 * What deserves a look in a session list:
 *  - a long timeout (> 60 s): when such a client dies, the ensemble keeps its session, its
 *    ephemerals and the locks they stand for alive for that long (the 15-minute task-queue
 *    sessions of the kazoo report held dead workers' tasks for 15 minutes);
 *  - silent: it has missed a ping it would have sent if it were alive (see silentThresholdMs),
 *    so it is stuck, paused or cut off, and expires unless it is heard from again;
 *  - no connection on any member: a client that is gone or partitioned, whose ephemerals
 *    stay until the session expires.
 */
import type { EnsembleSession } from '../types.js';

export const LONG_TIMEOUT_MS = 60_000;

/**
 * The silence rule. Every ZooKeeper client pings after a third of its session timeout T
 * without traffic: kazoo waits read_timeout / 2 = (2/3 T) / 2 minus 0-0.4 s of jitter, the
 * Java client readTimeout / 2 (minus 1 s, and at most 10 s), node-zookeeper-client T / 3. Any
 * request or ping is answered, so a live client's member has answered it within the last
 * T / 3, plus the time the ping and its answer take (network, a busy member, a scheduler
 * pause on a loaded host).
 *
 * So a session is silent when, by a lower bound of its silence (silence.ts: never more than
 * the truth, whatever the gathering's cadence or the cons/dump precision), it has missed its
 * ping by more than an allowance for that overhead: max(2 s, a quarter of the ping interval).
 * A live client is therefore never flagged; a frozen one is flagged at about T/3 + allowance
 * (12.5 s of a 30 s timeout; 5.3 s of 10 s) instead of 2/3 T, where its client would already
 * have given up on the connection. Never later than 2/3 T: past it no live client keeps a
 * connection silent (its own read timeout drops it), so the flag is true there whatever the T.
 */
export const PING_FRACTION = 1 / 3;
export const SILENCE_ALLOWANCE_MIN_MS = 2_000;
export const SILENCE_ALLOWANCE_FRACTION = 1 / 4;
export const CLIENT_READ_TIMEOUT_FRACTION = 2 / 3;

/** The longest a live client goes without pinging: a third of its session timeout. */
export function pingIntervalMs(timeoutMs: number): number {
  return timeoutMs * PING_FRACTION;
}

/** Beyond the ping interval, what a live client's answer may take: max(2 s, a quarter of the interval). */
export function silenceAllowanceMs(timeoutMs: number): number {
  return Math.max(SILENCE_ALLOWANCE_MIN_MS, pingIntervalMs(timeoutMs) * SILENCE_ALLOWANCE_FRACTION);
}

/** A session is flagged silent when its silence exceeds this. */
export function silentThresholdMs(timeoutMs: number): number {
  return Math.min(timeoutMs * CLIENT_READ_TIMEOUT_FRACTION, pingIntervalMs(timeoutMs) + silenceAllowanceMs(timeoutMs));
}

export function isSilent(timeoutMs: number | null, silentMs: number | null): boolean {
  return timeoutMs !== null && silentMs !== null && timeoutMs > 0 && silentMs > silentThresholdMs(timeoutMs);
}

export type SessionFlag = EnsembleSession['flags'][number];

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  return `${(m / 60).toFixed(m % 60 === 0 ? 0 : 1)} h`;
}

/** Like formatDuration, with a tenth of a second below 10 s ("2.5 s", "3.3 s"): the rule's figures are not whole seconds. */
function finerDuration(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s` : formatDuration(ms);
}

function ephemeralText(count: number): string {
  return count === 0 ? 'its ephemerals (none now)' : `its ${count} ephemeral${count === 1 ? '' : 's'} (and any locks they stand for)`;
}

export interface FlagInput {
  timeoutMs: number | null;
  silentMs: number | null;
  ephemeralCount: number;
  /** false: in the dump, on no member's connection list; null: not every member could be asked. */
  connected: boolean | null;
}

export function sessionFlags(s: FlagInput): SessionFlag[] {
  const flags: SessionFlag[] = [];
  if (s.timeoutMs !== null && s.timeoutMs > LONG_TIMEOUT_MS) {
    flags.push({
      kind: 'long-timeout',
      message: `Timeout ${formatDuration(s.timeoutMs)}: if this client dies, its session and ${ephemeralText(s.ephemeralCount)} stay for up to ${formatDuration(s.timeoutMs)}. Use the shortest timeout the client's pauses allow.`,
    });
  }
  if (s.timeoutMs !== null && s.silentMs !== null && isSilent(s.timeoutMs, s.silentMs)) {
    const left = Math.max(0, s.timeoutMs - s.silentMs);
    const ping = pingIntervalMs(s.timeoutMs);
    flags.push({
      // The kind keeps its name for API users; "silent" is flagged well before the timeout now.
      kind: 'silent-near-timeout',
      message:
        `Silent for at least ${formatDuration(s.silentMs)}: a live client pings every third of its ${formatDuration(s.timeoutMs)} timeout (${finerDuration(ping)}), ` +
        `and this one is past that by more than the ${finerDuration(silenceAllowanceMs(s.timeoutMs))} allowed for a slow answer. It is stuck, paused or cut off; ` +
        (left >= 1_000
          ? `its session expires within about ${formatDuration(left)} unless it is heard from.`
          : 'its session is due to expire now unless it is heard from.'),
    });
  }
  if (s.connected === false) {
    flags.push({
      kind: 'no-connection',
      message: `Connected to no member: if its client is gone, ${ephemeralText(s.ephemeralCount)} stay until the session expires${s.timeoutMs !== null ? ` (timeout ${formatDuration(s.timeoutMs)})` : ''}.`,
    });
  }
  return flags;
}
