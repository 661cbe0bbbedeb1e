/**
 * What deserves a look in a session list:
 *  - a long timeout (> 60 s): when such a client dies, the ensemble keeps its session, its
 *    ephemerals and the locks they stand for alive for that long (the 15-minute task-queue
 *    sessions of the kazoo report held dead workers' tasks for 15 minutes);
 *  - silent for more than 2/3 of its timeout: clients ping every third of it, so this one
 *    is stuck, paused or cut off and will expire soon;
 *  - no connection on any member: a client that is gone or partitioned, whose ephemerals
 *    stay until the session expires.
 */
import type { EnsembleSession } from '../types.js';

export const LONG_TIMEOUT_MS = 60_000;
export const SILENT_FRACTION = 2 / 3;

export type SessionFlag = EnsembleSession['flags'][number];

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  return `${(m / 60).toFixed(m % 60 === 0 ? 0 : 1)} h`;
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
  if (s.timeoutMs !== null && s.silentMs !== null && s.silentMs > s.timeoutMs * SILENT_FRACTION) {
    const left = Math.max(0, s.timeoutMs - s.silentMs);
    flags.push({
      kind: 'silent-near-timeout',
      message: `Silent for ${formatDuration(s.silentMs)} of its ${formatDuration(s.timeoutMs)} timeout: clients ping every third of it, so this one is stuck, paused or cut off; it expires in about ${formatDuration(left)} unless it is heard from.`,
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
