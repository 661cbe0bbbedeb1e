/** The subtree-walk budget: slots with an admin reserve, one walk per identity, reads paced by cost. */
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../src/auth/identity.js';
import { TokenBucket, WalkBudget, WalkRefused, currentWalkTicket, walkLimitsFromConfig } from '../../src/ops/walkBudget.js';

const viewer = (name = 'viewer-token'): Identity => ({ name, role: 'viewer', via: 'bearer' });
const admin = (name = 'admin-token'): Identity => ({ name, role: 'admin', via: 'bearer' });

/** A walk that runs until released. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { walk: () => done, release };
}

async function refusal(promise: Promise<unknown>): Promise<WalkRefused> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WalkRefused);
  return error as WalkRefused;
}

describe('WalkBudget slots', () => {
  it('allows one walk per viewer identity at a time, with a sentence and a retry time', async () => {
    const budget = new WalkBudget();
    const first = held();
    const running = budget.run(viewer(), first.walk);
    const second = await refusal(budget.run(viewer(), async () => 'never'));
    expect(second.code).toBe('WALK_IN_PROGRESS');
    expect(second.message).toMatch(/viewer-token already has a subtree count or export running/);
    expect(second.retryAfterSeconds).toBeGreaterThan(0);
    // Another identity is not held back by this one.
    await expect(budget.run(viewer('alice'), async () => 'ok')).resolves.toBe('ok');
    first.release();
    await running;
    await expect(budget.run(viewer(), async () => 'again')).resolves.toBe('again');
  });

  it('keeps slots for admins: viewers fill only the shared ones', async () => {
    const budget = new WalkBudget({ maxConcurrentWalks: 3, adminReservedWalks: 1 });
    const walks = [held(), held()];
    const running = walks.map((w, i) => budget.run(viewer(`v${i}`), w.walk));
    const busy = await refusal(budget.run(viewer('v9'), async () => 'never'));
    expect(busy.code).toBe('WALKS_BUSY');
    expect(busy.message).toMatch(/limit for viewers/);
    // The admin still gets the reserved slot.
    await expect(budget.run(admin(), async () => 'admin ok')).resolves.toBe('admin ok');
    expect(budget.stats).toMatchObject({ running: 2, refused: 1 });
    for (const w of walks) w.release();
    await Promise.all(running);
    expect(budget.stats.running).toBe(0);
  });

  it('lets admins use every slot, and counts admins in the reserve before the shared ones', async () => {
    const budget = new WalkBudget({ maxConcurrentWalks: 3, adminReservedWalks: 1 });
    const a = held();
    const runningAdmin = budget.run(admin(), a.walk);
    // One admin walk sits in the reserve: viewers still have both shared slots.
    const v = [held(), held()];
    const runningViewers = v.map((w, i) => budget.run(viewer(`v${i}`), w.walk));
    expect(budget.stats.running).toBe(3);
    expect((await refusal(budget.run(admin('other-admin'), async () => 1))).code).toBe('WALKS_BUSY');
    a.release();
    for (const w of v) w.release();
    await Promise.all([runningAdmin, ...runningViewers]);
  });

  it('gives the slot back when a walk fails', async () => {
    const budget = new WalkBudget();
    await expect(budget.run(viewer(), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(budget.run(viewer(), async () => 'next')).resolves.toBe('next');
  });
});

describe('WalkBudget cost', () => {
  it('charges reads to the walk being run, and nothing outside a walk', async () => {
    const budget = new WalkBudget();
    expect(currentWalkTicket()).toBeUndefined();
    const reads = await budget.run(viewer(), async () => {
      const ticket = currentWalkTicket();
      await ticket?.charge(10);
      await Promise.resolve();
      await currentWalkTicket()?.charge(5);
      return currentWalkTicket()?.reads;
    });
    expect(reads).toBe(15);
  });

  it('paces a walk once its budget runs out, by the time the budget needs to cover it', async () => {
    const now = 0;
    const sleeps: number[] = [];
    const budget = new WalkBudget(
      { readsPerMinutePerIdentity: 600, viewerReadsPerMinute: 100_000 },
      () => now,
      async (ms) => void sleeps.push(ms),
    );
    await budget.run(viewer(), async () => {
      const ticket = currentWalkTicket();
      for (let i = 0; i < 600; i++) await ticket?.charge(1);
      expect(sleeps).toEqual([]);
      // Past the budget of 10 reads a second, each read waits for its share of the rate.
      await ticket?.charge(1);
      await ticket?.charge(1);
    });
    expect(sleeps).toEqual([100, 200]);
  });

  it('stops a walk whose pacing would take longer than half a minute', async () => {
    const budget = new WalkBudget(
      { readsPerMinutePerIdentity: 60, viewerReadsPerMinute: 100_000 },
      () => 0,
      async () => undefined,
    );
    const spent = await refusal(budget.run(viewer(), async () => currentWalkTicket()?.charge(100)));
    expect(spent.code).toBe('WALK_BUDGET_SPENT');
    expect(spent.retryAfterSeconds).toBe(40);
  });

  it('refuses a walk while its identity has spent its budget, saying when to come back', async () => {
    let now = 0;
    const budget = new WalkBudget(
      { readsPerMinutePerIdentity: 600, viewerReadsPerMinute: 100_000 },
      () => now,
      async () => undefined,
    );
    // 660 reads: 60 reads of debt, which take 6 s to pay at 10 reads a second.
    await budget.run(viewer(), async () => {
      await currentWalkTicket()?.charge(660);
    });
    const spent = await refusal(budget.run(viewer(), async () => 'never'));
    expect(spent.code).toBe('WALK_BUDGET_SPENT');
    expect(spent.message).toMatch(/600 ZooKeeper reads a minute/);
    expect(spent.retryAfterSeconds).toBe(6);
    // Others keep their own budget...
    await expect(budget.run(viewer('alice'), async () => 'ok')).resolves.toBe('ok');
    // ...admins are not charged at all...
    await expect(
      budget.run(admin(), async () =>
        currentWalkTicket()
          ?.charge(1_000_000)
          .then(() => 'admin ok'),
      ),
    ).resolves.toBe('admin ok');
    // ...and the spent budget refills with time.
    now += 6_000;
    await expect(budget.run(viewer(), async () => 'later')).resolves.toBe('later');
  });

  it('charges every viewer to the budget they share', async () => {
    let now = 0;
    const budget = new WalkBudget(
      { readsPerMinutePerIdentity: 1_000_000, viewerReadsPerMinute: 1_000 },
      () => now,
      async () => undefined,
    );
    await budget.run(viewer('a'), async () => {
      await currentWalkTicket()?.charge(1_000);
    });
    now += 1;
    await budget.run(viewer('b'), async () => currentWalkTicket()?.charge(100));
    expect((await refusal(budget.run(viewer('c'), async () => 1))).message).toMatch(/1000 for all viewers together/);
  });
});

describe('TokenBucket', () => {
  it('holds a minute of reads, goes into debt, and says how long the debt lasts', () => {
    const bucket = new TokenBucket(600, 0);
    expect(bucket.charge(600, 0)).toBe(0);
    expect(bucket.charge(10, 0)).toBe(1_000);
    expect(bucket.debtMs(500)).toBe(500);
    expect(bucket.debtMs(1_000)).toBe(0);
    expect(bucket.isFull(61_000)).toBe(true);
  });
});

describe('walkLimitsFromConfig', () => {
  it('maps the config file names and leaves the rest to the defaults', () => {
    expect(walkLimitsFromConfig({ walks: 8, walksPerIdentity: 2, walkReadsPerMinuteForViewers: 5 })).toEqual({
      maxConcurrentWalks: 8,
      walksPerIdentity: 2,
      viewerReadsPerMinute: 5,
    });
    expect(new WalkBudget(walkLimitsFromConfig(undefined)).limits).toEqual({
      maxConcurrentWalks: 4,
      adminReservedWalks: 1,
      walksPerIdentity: 1,
      readsPerMinutePerIdentity: 30_000,
      viewerReadsPerMinute: 120_000,
    });
  });
});

describe('WalkBudget abandoned walks', () => {
  it('stops a walk at its next read once nobody waits for it, and frees the slot', async () => {
    const budget = new WalkBudget();
    const gone = new AbortController();
    let reads = 0;
    const walk = budget.run(
      viewer(),
      async () => {
        for (;;) {
          await currentWalkTicket()?.charge(1);
          reads++;
          if (reads === 3) gone.abort();
        }
      },
      gone.signal,
    );
    await expect(walk).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(reads).toBe(3);
    await expect(budget.run(viewer(), async () => 'free again')).resolves.toBe('free again');
  });
});
