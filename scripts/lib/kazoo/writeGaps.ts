/**
 * What a client feels of a restart: the longest wait between two of its acknowledged writes.
 * Pure, so the benches and tests that measure it agree on the arithmetic.
 */

/**
 * The longest gap between consecutive ack times (epoch ms, ascending) felt in the window
 * [from, to]. A gap belongs to the window in which it ends, counted in full from the last ack
 * before it (so a restart's gap is not also charged to the step before, whose window ended a
 * moment after its last ack). A gap still open at `to` counts up to `to`, and with no ack before
 * `from` the wait counts from `from`.
 */
export function longestGap(ackTimes: readonly number[], from: number, to: number): number {
  if (to < from) return 0;
  let previous = from;
  let longest = 0;
  for (const at of ackTimes) {
    if (at <= from) {
      previous = at;
      continue;
    }
    if (at > to) break;
    longest = Math.max(longest, at - previous);
    previous = at;
  }
  return Math.max(longest, to - previous);
}

/** The median gap between consecutive acks in [from, to]: a writer's rhythm when nothing happens. */
export function typicalGap(ackTimes: readonly number[], from: number, to: number): number {
  const inside = ackTimes.filter((at) => at >= from && at <= to);
  const gaps = inside.slice(1).map((at, i) => at - inside[i]!);
  if (gaps.length === 0) return 0;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

export interface SentWrite {
  /** The wait this write's ack ended: from the writer's ack before it (or its own send, for its first) to its ack. */
  gapMs: number;
  /** ack - first send, retries included. */
  latencyMs: number;
}

/**
 * The writes first sent in [from, to) by one writer whose acks (in order) carry their send time.
 * A stall is charged to the window in which the stalled write was sent, so back-to-back windows
 * (the steps of a resize) each count a write once, whenever its ack came.
 */
export function writesSentIn(acks: readonly { at: number; sentAt: number }[], from: number, to: number): SentWrite[] {
  const out: SentWrite[] = [];
  acks.forEach((a, i) => {
    if (a.sentAt < from || a.sentAt >= to) return;
    out.push({ gapMs: a.at - (i > 0 ? acks[i - 1]!.at : a.sentAt), latencyMs: a.at - a.sentAt });
  });
  return out;
}
