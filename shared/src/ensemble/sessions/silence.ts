/**
 * How long has a session been silent, i.e. since its member last answered it? Only LOWER
 * bounds are used, the largest wins, so a live session is never made to look more silent
 * than it is (the silent flag must have no false positives; see silentThresholdMs in flags.ts).
 *
 * For a session with a connection (`cons`): `lresp` is on the member's MONOTONIC clock (ms since
 * its host booted), which Keeper cannot read directly, so
 *  1. the member's freshest lresp over all its connections in the same answer is at or before
 *     the member's "now" when it answered: silence >= freshest - lresp;
 *  2. if this connection's lresp has not changed since an earlier gathering, it has been silent
 *     at least since then. Keeper's clock measures that part, counted from when the earlier
 *     answer had ARRIVED to when the later question was SENT: both readings happened between
 *     their question and their answer, so this never counts a slow gathering as silence.
 * The leader's `dump` expiry is not used for a connected session: it is the leader's wall clock
 * read against Keeper's (any skew between the hosts would count as silence), and the member that
 * holds the connection knows better.
 *
 * For a session no member lists (dump only):
 *  3. expiry = last heard + timeout (rounded UP to a tick, and the dump prints whole seconds),
 *     so at least now - (expiresAt - timeout) - 1 s has passed since it was heard.
 */
export interface SilenceSighting {
  lastResponseMono: number;
  /** Keeper's clock when the answer that first carried this lresp value had arrived. */
  firstSeenAt: number;
  /** The silence estimated then. */
  silenceThen: number;
}

export interface SilenceInput {
  /** Keeper's clock when the cons question was sent (no later than the member's reading). */
  askedAt: number;
  /** Keeper's clock when its answer had arrived (no earlier than the member's reading). */
  answeredAt: number;
  lastResponseMono: number | null;
  /** max(lresp) over the member's connections in the same cons answer. */
  memberFreshestMono: number | null;
  previous: SilenceSighting | undefined;
}

export interface DumpSilenceInput {
  now: number;
  expiresAt: number | null;
  timeoutMs: number | null;
}

/** The dump prints expiry times in whole seconds. */
export const DUMP_PRECISION_MS = 1000;

export function estimateSilence(input: SilenceInput): { silentMs: number | null; sighting: SilenceSighting | null } {
  const { lastResponseMono, previous } = input;
  if (lastResponseMono === null) return { silentMs: null, sighting: null };
  const bounds: number[] = [];
  if (input.memberFreshestMono !== null) bounds.push(Math.max(0, input.memberFreshestMono - lastResponseMono));
  const unchanged = previous !== undefined && previous.lastResponseMono === lastResponseMono;
  if (unchanged) bounds.push(previous.silenceThen + Math.max(0, input.askedAt - previous.firstSeenAt));
  if (bounds.length === 0) return { silentMs: null, sighting: null };
  const silentMs = Math.max(...bounds);
  const sighting = unchanged ? previous : { lastResponseMono, firstSeenAt: input.answeredAt, silenceThen: silentMs };
  return { silentMs, sighting };
}

/** Silence of a session only the dump knows about (no member lists a connection for it). */
export function silenceFromDump(input: DumpSilenceInput): number | null {
  if (input.expiresAt === null || input.timeoutMs === null) return null;
  return Math.max(0, input.now - (input.expiresAt - input.timeoutMs) - DUMP_PRECISION_MS);
}
