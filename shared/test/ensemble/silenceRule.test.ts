/**
 * The silent flag's rule, at its boundaries: a live client pinging every third of its timeout
 * (kazoo's jitter, a slow answer, any gathering cadence, answers that take their time) is never
 * flagged; a frozen one is flagged well before 2/3 of its timeout, where the old rule flagged it.
 * The member is simulated on its own monotonic clock, read by `cons` between question and answer.
 */
import { describe, expect, it } from 'vitest';
import { isSilent, joinSessions, pingIntervalMs, silenceAllowanceMs, silentThresholdMs, type SilenceSighting } from '../../src/ensemble/index.js';
import type { ConsConnection } from '../../src/ensemble/parse/cons.js';

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** The member's monotonic clock runs from an unrelated origin. */
const MONO_OFFSET = -1_795_000_000_000 + 3_000_000;
const mono = (wall: number) => wall + MONO_OFFSET;

function connection(sessionId: string, timeoutMs: number, lastResponseWall: number): ConsConnection {
  return {
    client: '10.0.0.1:5000',
    sessionId,
    timeoutMs,
    establishedAt: 0,
    lastResponseMono: mono(lastResponseWall),
    latencyMin: 0,
    latencyAvg: 0,
    latencyMax: 0,
    queued: 0,
    received: 1,
    sent: 1,
  } as ConsConnection;
}

/**
 * A kazoo-like client's answered pings: after the last answer it waits T/3 minus 0-0.4 s of
 * jitter, then its ping is answered after `answerMs` (network and member, up to `maxAnswerMs`).
 */
function livePings(timeoutMs: number, from: number, to: number, rnd: () => number, maxAnswerMs: number): number[] {
  const out = [from];
  for (let at = from; at < to;) {
    at += pingIntervalMs(timeoutMs) - rnd() * 400 + rnd() * maxAnswerMs;
    out.push(at);
  }
  return out;
}

const lastBefore = (answers: readonly number[], t: number) => answers.filter((a) => a <= t).at(-1)!;

interface Gathering {
  askedAt: number;
  answeredAt: number;
  flagged: boolean;
}

/**
 * Gatherings every `cadenceMs` (with jitter), each cons answer taking up to `answerDelayMs`;
 * optionally a busy neighbour on the same member whose lresp is always fresh.
 */
function gather(opts: {
  timeoutMs: number;
  answers: readonly number[];
  from: number;
  to: number;
  cadenceMs: number;
  answerDelayMs: number;
  neighbour: boolean;
  rnd: () => number;
}): Gathering[] {
  const out: Gathering[] = [];
  let sightings: ReadonlyMap<string, SilenceSighting> = new Map();
  for (let t = opts.from; t < opts.to; t += opts.cadenceMs * (0.5 + opts.rnd())) {
    const askedAt = t;
    const readAt = askedAt + opts.rnd() * opts.answerDelayMs;
    const answeredAt = readAt + opts.rnd() * opts.answerDelayMs;
    const connections = [connection('0x1', opts.timeoutMs, lastBefore(opts.answers, readAt))];
    if (opts.neighbour) connections.push(connection('0x2', 10_000, readAt - opts.rnd() * 50));
    const joined = joinSessions({
      now: answeredAt,
      cons: [{ member: 'm:1', connections, askedAt, answeredAt }],
      dump: null,
      consIncomplete: false,
      consoleSessionId: null,
      sightings,
    });
    sightings = joined.sightings;
    const session = joined.sessions.find((s) => s.sessionId === '0x1')!;
    out.push({ askedAt, answeredAt, flagged: session.flags.some((f) => f.kind === 'silent-near-timeout') });
  }
  return out;
}

const TIMEOUTS = [4_000, 6_000, 10_000, 30_000, 40_000, 900_000];
const CADENCES = [300, 1_000, 3_000, 10_000, 60_000];

describe('the silence threshold', () => {
  it('is a third of the timeout plus max(2 s, a quarter of that), never past 2/3 of the timeout', () => {
    expect(silentThresholdMs(30_000)).toBe(12_500);
    expect(silenceAllowanceMs(30_000)).toBe(2_500);
    expect(silentThresholdMs(10_000)).toBeCloseTo(5_333, 0);
    expect(silentThresholdMs(4_000)).toBeCloseTo(2_667, 0);
    expect(silentThresholdMs(900_000)).toBe(375_000);
    for (const t of TIMEOUTS) {
      expect(silentThresholdMs(t)).toBeGreaterThan(pingIntervalMs(t));
      expect(silentThresholdMs(t)).toBeLessThanOrEqual((2 / 3) * t);
    }
  });

  it('flags strictly beyond the threshold, and nothing without a timeout or a silence', () => {
    expect(isSilent(30_000, 12_500)).toBe(false);
    expect(isSilent(30_000, 12_501)).toBe(true);
    expect(isSilent(null, 60_000)).toBe(false);
    expect(isSilent(30_000, null)).toBe(false);
    expect(isSilent(0, 1_000)).toBe(false);
  });
});

describe('a live client pinging every third of its timeout', () => {
  it('is never flagged, whatever the timeout, the gathering cadence, the neighbours or a slow cons answer', () => {
    let gatherings = 0;
    for (const [i, timeoutMs] of TIMEOUTS.entries()) {
      for (const [j, cadenceMs] of CADENCES.entries()) {
        for (const neighbour of [false, true]) {
          const rnd = random(1 + i * 100 + j * 10 + (neighbour ? 1 : 0));
          const to = Math.max(20 * cadenceMs, 6 * timeoutMs);
          // Answers a member gives a live client: up to 1 s late (well inside the 2 s floor of the allowance).
          const answers = livePings(timeoutMs, 0, to + timeoutMs, rnd, 1_000);
          const result = gather({ timeoutMs, answers, from: 1, to, cadenceMs, answerDelayMs: 1_000, neighbour, rnd });
          gatherings += result.length;
          expect(
            result.filter((g) => g.flagged),
            `T=${timeoutMs} cadence=${cadenceMs} neighbour=${neighbour}`,
          ).toEqual([]);
        }
      }
    }
    expect(gatherings).toBeGreaterThan(1_000);
  });

  it('at the very edge: answered exactly a ping interval plus the allowance ago, it is still not flagged', () => {
    const timeoutMs = 30_000;
    const answers = [0, silentThresholdMs(timeoutMs)];
    // The member reads cons just before the second answer, and a neighbour makes that reading exact.
    const result = gather({
      timeoutMs,
      answers,
      from: silentThresholdMs(timeoutMs) - 1,
      to: silentThresholdMs(timeoutMs),
      cadenceMs: 1_000,
      answerDelayMs: 0,
      neighbour: true,
      rnd: () => 0,
    });
    expect(result).toHaveLength(1);
    expect(result[0]!.flagged).toBe(false);
  });
});

describe('a frozen client', () => {
  it('is flagged about a ping interval plus the allowance after its last answer, long before 2/3 of its timeout', () => {
    for (const timeoutMs of [10_000, 30_000, 40_000]) {
      for (const neighbour of [false, true]) {
        const rnd = random(timeoutMs + (neighbour ? 7 : 0));
        const frozenAt = 3 * timeoutMs + 1_234;
        const answers = livePings(timeoutMs, 0, frozenAt, rnd, 200).filter((a) => a <= frozenAt);
        const lastAnswer = answers.at(-1)!;
        const result = gather({ timeoutMs, answers, from: 1, to: frozenAt + timeoutMs, cadenceMs: 1_000, answerDelayMs: 200, neighbour, rnd });
        expect(result.filter((g) => g.flagged && g.askedAt < lastAnswer + silentThresholdMs(timeoutMs))).toEqual([]);
        const first = result.find((g) => g.flagged)!;
        // With gatherings about every second: flagged within ~2 gatherings of the threshold.
        expect(first.answeredAt - lastAnswer).toBeLessThan(silentThresholdMs(timeoutMs) + 3_500);
        if (timeoutMs >= 30_000) expect(first.answeredAt - lastAnswer).toBeLessThan((2 / 3) * timeoutMs - 3_000);
        // And it stays flagged while it stays frozen.
        expect(result.filter((g) => g.askedAt > first.askedAt).every((g) => g.flagged)).toBe(true);
      }
    }
  });
});
