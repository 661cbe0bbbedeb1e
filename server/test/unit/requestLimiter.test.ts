import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ZkError } from '../../src/zk/errors.js';
import { RequestLimiter } from '../../src/zk/requestLimiter.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run (setImmediate stays real: only setTimeout and Date are faked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

type Outcome<T> = { status: 'pending' } | { status: 'fulfilled'; value: T } | { status: 'rejected'; error: unknown };

function track<T>(promise: Promise<T>): { readonly outcome: Outcome<T> } {
  const box: { outcome: Outcome<T> } = { outcome: { status: 'pending' } };
  promise.then(
    (value) => (box.outcome = { status: 'fulfilled', value }),
    (error: unknown) => (box.outcome = { status: 'rejected', error }),
  );
  return box;
}

function zkCode(outcome: Outcome<unknown>): string | undefined {
  return outcome.status === 'rejected' && outcome.error instanceof ZkError ? outcome.error.code : undefined;
}

const FAR = () => Date.now() + 60_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('RequestLimiter', () => {
  it('runs a task at once while under the cap and returns its value', async () => {
    const limiter = new RequestLimiter(2, 10);
    const gate = deferred<string>();
    const run = track(limiter.run(FAR(), () => gate.promise));
    await settle();
    expect(limiter.outstanding).toBe(1);
    expect(limiter.queued).toBe(0);
    gate.resolve('value');
    await settle();
    expect(run.outcome).toEqual({ status: 'fulfilled', value: 'value' });
    expect(limiter.outstanding).toBe(0);
  });

  it('never has more than maxInFlight tasks running, and runs them all', async () => {
    const max = 3;
    const limiter = new RequestLimiter(max, 100);
    let running = 0;
    let peak = 0;
    const gates: Array<Deferred<void>> = [];
    const runs = Array.from({ length: 20 }, (_, i) =>
      track(
        limiter.run(FAR(), async () => {
          running++;
          peak = Math.max(peak, running);
          const gate = deferred();
          gates.push(gate);
          await gate.promise;
          running--;
          return i;
        }),
      ),
    );
    await settle();
    expect(running).toBe(max);
    expect(limiter.outstanding).toBe(max);
    expect(limiter.queued).toBe(20 - max);
    // Finish tasks in a scrambled order: not the order they started in.
    for (let step = 0; step < 20; step++) {
      expect(gates.length).toBeGreaterThan(0);
      const [gate] = gates.splice((step * 7) % gates.length, 1);
      gate!.resolve();
      await settle();
      expect(running).toBeLessThanOrEqual(max);
      expect(limiter.outstanding).toBe(running);
    }
    expect(gates).toHaveLength(0);
    expect(peak).toBe(max);
    expect(runs.map((r) => r.outcome)).toEqual(Array.from({ length: 20 }, (_, i) => ({ status: 'fulfilled', value: i })));
    expect(limiter.outstanding).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('grants queued callers in FIFO order', async () => {
    const limiter = new RequestLimiter(1, 100);
    const started: string[] = [];
    const gates = new Map<string, Deferred<void>>();
    const start = (name: string) =>
      limiter.run(FAR(), () => {
        started.push(name);
        const gate = deferred();
        gates.set(name, gate);
        return gate.promise;
      });
    const all = ['a', 'b', 'c', 'd', 'e'].map(start);
    await settle();
    expect(started).toEqual(['a']);
    for (const name of ['a', 'b', 'c', 'd']) {
      gates.get(name)!.resolve();
      await settle();
    }
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    gates.get('e')!.resolve();
    await Promise.all(all);
  });

  it('rejects a waiting caller with DEADLINE_EXCEEDED exactly at its deadline, and never runs its task', async () => {
    const limiter = new RequestLimiter(1, 10);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    const task = vi.fn(async () => 'late');
    const waiting = track(limiter.run(Date.now() + 100, task));
    await settle();
    expect(limiter.queued).toBe(1);
    vi.advanceTimersByTime(99);
    await settle();
    expect(waiting.outcome.status).toBe('pending');
    vi.advanceTimersByTime(1);
    await settle();
    expect(zkCode(waiting.outcome)).toBe('DEADLINE_EXCEEDED');
    expect(limiter.queued).toBe(0);
    hold.resolve();
    await settle();
    expect(task).not.toHaveBeenCalled();
    expect(limiter.outstanding).toBe(0);
  });

  it('gives each waiter its own deadline', async () => {
    const limiter = new RequestLimiter(1, 10);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    const now = Date.now();
    const late = track(limiter.run(now + 300, async () => 'late'));
    const early = track(limiter.run(now + 100, async () => 'early'));
    vi.advanceTimersByTime(100);
    await settle();
    expect(zkCode(early.outcome)).toBe('DEADLINE_EXCEEDED');
    expect(late.outcome.status).toBe('pending');
    hold.resolve();
    await settle();
    expect(late.outcome).toEqual({ status: 'fulfilled', value: 'late' });
  });

  it('rejects a waiter whose deadline has already passed on the next timer turn', async () => {
    const limiter = new RequestLimiter(1, 10);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    const waiting = track(limiter.run(Date.now() - 5, async () => 'x'));
    vi.advanceTimersByTime(0);
    await settle();
    expect(zkCode(waiting.outcome)).toBe('DEADLINE_EXCEEDED');
    hold.resolve();
  });

  it('does not apply the deadline to a task that got a slot', async () => {
    const limiter = new RequestLimiter(1, 10);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    const gate = deferred<string>();
    const waiting = track(limiter.run(Date.now() + 100, () => gate.promise));
    vi.advanceTimersByTime(50);
    hold.resolve();
    await settle(); // granted at 50 ms
    expect(limiter.outstanding).toBe(1);
    expect(vi.getTimerCount()).toBe(0); // its deadline timer was cancelled, not left to fire
    vi.advanceTimersByTime(500); // well past its deadline while running
    await settle();
    expect(waiting.outcome.status).toBe('pending');
    gate.resolve('done');
    await settle();
    expect(waiting.outcome).toEqual({ status: 'fulfilled', value: 'done' });
  });

  it('a timed-out waiter does not take a slot from the next one', async () => {
    const limiter = new RequestLimiter(1, 10);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    const timedOut = track(limiter.run(Date.now() + 10, async () => 'never'));
    const next = track(limiter.run(FAR(), async () => 'next'));
    vi.advanceTimersByTime(10);
    await settle();
    expect(zkCode(timedOut.outcome)).toBe('DEADLINE_EXCEEDED');
    expect(limiter.queued).toBe(1);
    hold.resolve();
    await settle();
    expect(next.outcome).toEqual({ status: 'fulfilled', value: 'next' });
    expect(limiter.outstanding).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('refuses with OVERLOADED at once when the queue is full, without running the task', async () => {
    const limiter = new RequestLimiter(1, 2);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    const queued = [track(limiter.run(FAR(), async () => 1)), track(limiter.run(FAR(), async () => 2))];
    const task = vi.fn(async () => 3);
    const refused = track(limiter.run(FAR(), task));
    await settle();
    expect(zkCode(refused.outcome)).toBe('OVERLOADED');
    expect(task).not.toHaveBeenCalled();
    expect(limiter.queued).toBe(2);
    hold.resolve();
    await settle();
    expect(queued.map((q) => q.outcome)).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: 2 },
    ]);
  });

  it('with maxQueued 0, refuses as soon as every slot is busy', async () => {
    const limiter = new RequestLimiter(2, 0);
    const hold = deferred();
    void limiter.run(FAR(), () => hold.promise);
    void limiter.run(FAR(), () => hold.promise);
    await expect(limiter.run(FAR(), async () => 'x')).rejects.toMatchObject({ code: 'OVERLOADED' });
    hold.resolve();
    await settle();
    await expect(limiter.run(FAR(), async () => 'ok')).resolves.toBe('ok');
  });

  it('releases the slot when a task rejects, and passes the error through', async () => {
    const limiter = new RequestLimiter(1, 10);
    const boom = new Error('boom');
    const failing = track(limiter.run(FAR(), async () => Promise.reject(boom)));
    const after = track(limiter.run(FAR(), async () => 'after'));
    await settle();
    expect(failing.outcome).toEqual({ status: 'rejected', error: boom });
    expect(after.outcome).toEqual({ status: 'fulfilled', value: 'after' });
    expect(limiter.outstanding).toBe(0);
  });

  it('releases the slot when a task throws synchronously', async () => {
    const limiter = new RequestLimiter(1, 10);
    const failing = track(
      limiter.run(FAR(), () => {
        throw new Error('sync');
      }),
    );
    const after = track(limiter.run(FAR(), async () => 'after'));
    await settle();
    expect(failing.outcome.status).toBe('rejected');
    expect(after.outcome).toEqual({ status: 'fulfilled', value: 'after' });
    expect(limiter.outstanding).toBe(0);
  });

  it('keeps its counts right through a mixed storm of successes, failures, timeouts and refusals', async () => {
    const limiter = new RequestLimiter(4, 8);
    let running = 0;
    let peak = 0;
    const outcomes: Array<{ readonly outcome: Outcome<number> }> = [];
    for (let i = 0; i < 60; i++) {
      outcomes.push(
        track(
          limiter.run(Date.now() + (i % 3) * 40, async () => {
            running++;
            peak = Math.max(peak, running);
            await new Promise((resolve) => setTimeout(resolve, 15));
            running--;
            if (i % 5 === 0) throw new Error(`fail ${i}`);
            return i;
          }),
        ),
      );
      if (i % 10 === 9) {
        vi.advanceTimersByTime(5);
        await settle();
      }
    }
    for (let t = 0; t < 50; t++) {
      vi.advanceTimersByTime(10);
      await settle();
    }
    expect(peak).toBeLessThanOrEqual(4);
    expect(outcomes.every((o) => o.outcome.status !== 'pending')).toBe(true);
    const codes = new Set(outcomes.map((o) => zkCode(o.outcome)).filter(Boolean));
    expect(codes).toEqual(new Set(['OVERLOADED', 'DEADLINE_EXCEEDED']));
    expect(limiter.outstanding).toBe(0);
    expect(limiter.queued).toBe(0);
    expect(running).toBe(0);
  });
});
