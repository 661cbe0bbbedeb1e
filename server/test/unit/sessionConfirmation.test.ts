/** The liveness probe's pacing and verdicts, with a fake client: which probes go out, and when a member counts as unconfirmed. */
import { describe, expect, it } from 'vitest';
import type zookeeper from 'node-zookeeper-client';
import { SessionConfirmation, type ProbeTarget } from '../../src/zk/sessionConfirmation.js';

const OPTIONS = { intervalMs: 1_000, unconfirmedAfterMs: 2_000, probeDeadlineMs: 5_000, checkEveryMs: 250, stallSlackMs: 500 };

function fakeTarget(lastAnswerAt: number) {
  const pending: ((error: unknown) => void)[] = [];
  const client = { exists: (_path: string, cb: (error: unknown) => void) => pending.push(cb) } as unknown as zookeeper.Client;
  const target = { client, lastAnswerAt } as { client: zookeeper.Client; lastAnswerAt: number };
  return { target: target as ProbeTarget & { lastAnswerAt: number }, pending };
}

describe('SessionConfirmation', () => {
  it('sends nothing while answers keep coming, and confirms', () => {
    const c = new SessionConfirmation(OPTIONS);
    const { target, pending } = fakeTarget(0);
    for (let now = 0; now <= 10_000; now += 250) {
      (target as { lastAnswerAt: number }).lastAnswerAt = now - 100; // other traffic answered 100 ms ago
      expect(c.check(target, now, () => {}).verdict).toBe('confirmed');
    }
    expect(pending).toHaveLength(0);
  });

  it('probes an idle member once a second, one probe at a time', () => {
    const c = new SessionConfirmation(OPTIONS);
    const { target, pending } = fakeTarget(0);
    let now = 0;
    for (; now < 5_000; now += 250) {
      c.check(target, now, () => {});
      // The member answers each probe 10 ms later.
      while (pending.length) {
        pending.shift()!(null);
        (target as { lastAnswerAt: number }).lastAnswerAt = now + 10;
      }
    }
    expect(c.probesSent).toBeGreaterThanOrEqual(4);
    expect(c.probesSent).toBeLessThanOrEqual(5);
  });

  it('a hung member: unconfirmed after 2 s of silence, and never a queue of probes', () => {
    const c = new SessionConfirmation(OPTIONS);
    const { target, pending } = fakeTarget(1_000);
    const verdicts: [number, string][] = [];
    for (let now = 1_000; now <= 5_900; now += 250) verdicts.push([now, c.check(target, now, () => {}).verdict]);
    expect(verdicts.find(([, v]) => v === 'unconfirmed')?.[0]).toBe(3_250);
    expect(pending).toHaveLength(1); // the first probe is still outstanding: no second one before its deadline
    c.check(target, 7_100, () => {});
    expect(pending).toHaveLength(2); // past the deadline, one more may go
  });

  it('confirms at once when the member answers again', () => {
    const c = new SessionConfirmation(OPTIONS);
    const { target } = fakeTarget(0);
    expect(c.check(target, 3_000, () => {}).verdict).toBe('unconfirmed');
    (target as { lastAnswerAt: number }).lastAnswerAt = 3_100;
    expect(c.check(target, 3_250, () => {})).toEqual({ verdict: 'confirmed', lastAnswerAt: 3_100 });
  });

  it('a new connection is not held back by a probe outstanding on the old one', () => {
    const c = new SessionConfirmation(OPTIONS);
    const old = fakeTarget(0);
    c.check(old.target, 1_500, () => {});
    expect(old.pending).toHaveLength(1);
    const fresh = fakeTarget(1_600);
    c.check(fresh.target, 2_700, () => {});
    expect(fresh.pending).toHaveLength(1);
  });

  it('reports a probe that fails and frees the lane for the next', () => {
    const c = new SessionConfirmation(OPTIONS);
    const { target, pending } = fakeTarget(0);
    const errors: unknown[] = [];
    c.check(target, 1_000, (e) => errors.push(e));
    pending.shift()!(new Error('CONNECTION_LOSS'));
    expect(errors).toHaveLength(1);
    c.check(target, 1_250, () => {});
    expect(pending).toHaveLength(1);
  });
});

describe("SessionConfirmation and Keeper's own stalls (issue 22 item 16)", () => {
  const checks = (c: SessionConfirmation, target: ProbeTarget, from: number, to: number) => {
    const verdicts: [number, string][] = [];
    for (let now = from; now <= to; now += 250) verdicts.push([now, c.check(target, now, () => {}).verdict]);
    return verdicts;
  };

  it('does not blame the member for a stall of its own event loop: silence counts from when Keeper resumed', () => {
    const c = new SessionConfirmation({ ...OPTIONS, checkEveryMs: 250, stallSlackMs: 500 });
    const { target, pending } = fakeTarget(1_000);
    // Answers keep coming until 1,000; Keeper freezes from 1,000 to 11,000 (its next check is 10 s late).
    checks(c, target, 1_000, 1_000);
    const sentBefore = pending.length;
    expect(c.check(target, 11_000, () => {}).verdict).toBe('confirmed');
    expect(c.stallsSeen).toBe(1);
    // A fresh probe goes at once: the one sent before the stall proves nothing either way.
    expect(pending.length).toBe(sentBefore + 1);
    // The member's answers were waiting in the socket: read right after the timer, they confirm it.
    (target as { lastAnswerAt: number }).lastAnswerAt = 11_002;
    expect(checks(c, target, 11_250, 12_750).every(([, v]) => v === 'confirmed')).toBe(true);
  });

  it('still says unconfirmed when the member stays silent for 2 s of Keeper running after the stall', () => {
    const c = new SessionConfirmation({ ...OPTIONS, checkEveryMs: 250, stallSlackMs: 500 });
    const { target } = fakeTarget(1_000);
    c.check(target, 1_000, () => {});
    expect(c.check(target, 11_000, () => {}).verdict).toBe('confirmed');
    const verdicts = checks(c, target, 11_250, 14_000);
    expect(verdicts.find(([, v]) => v === 'unconfirmed')?.[0]).toBe(13_250);
  });

  it('a gap while the session was not connected is not a stall', () => {
    const c = new SessionConfirmation({ ...OPTIONS, checkEveryMs: 250, stallSlackMs: 500 });
    const { target } = fakeTarget(1_000);
    c.check(target, 1_000, () => {});
    c.rest();
    c.check(target, 9_000, () => {});
    expect(c.stallsSeen).toBe(0);
  });
});
