/** Recipes recognized by their nodes' names; contenders ordered by the sequence suffix, never by name. */
import { describe, expect, it } from 'vitest';
import { compileLockPattern, lockPatternSchema, recognizeLock } from '../../src/locks/index.js';
import { curator, hex32, kazooLock, kazooRead, seq } from './support.js';

const recipeOf = (path: string, children: string[], siblings?: string[]) => recognizeLock({ path, children, siblings: siblings ?? null })?.recipe.id ?? null;

describe('recognizeLock: built-in recipes', () => {
  it.each([
    ['kazoo Lock', [kazooLock(1, 0), kazooLock(2, 1)], 'kazoo.Lock'],
    ['kazoo ReadLock/WriteLock', [kazooLock(1, 0), kazooRead(2, 1)], 'kazoo.ReadWriteLock'],
    ['kazoo Party', [`${hex32(1)}__party__`, `${hex32(2)}__party__`], 'kazoo.Party'],
    ['kazoo Queue', [`entry-100-${seq(0)}`, `entry-001-${seq(1)}`], 'kazoo.Queue'],
    ['Curator InterProcessMutex', [curator(1, 'lock-', 0), curator(2, 'lock-', 1)], 'curator.InterProcessMutex'],
    ['Curator InterProcessReadWriteLock', [curator(1, '__READ__', 0), curator(2, '__WRIT__', 1)], 'curator.InterProcessReadWriteLock'],
    ['Curator InterProcessSemaphoreV2 leases', [curator(1, 'lease-', 0), curator(2, 'lease-', 1)], 'curator.InterProcessSemaphoreV2'],
    ['Curator LeaderLatch', [curator(1, 'latch-', 0), curator(2, 'latch-', 1)], 'curator.LeaderLatch'],
    ['ZooKeeper WriteLock.java', [`x-72057594037927940-${seq(0)}`, `x-72057594037927941-${seq(1)}`], 'zookeeper.WriteLock'],
    ['ZooKeeper guid-lock-', [`3f2a-lock-${seq(0)}`, `77b1-lock-${seq(1)}`], 'zookeeper.Lock'],
    ['Curator unprotected lock- reads as the ZooKeeper recipe', [`lock-${seq(0)}`, curator(2, 'lock-', 1)], 'zookeeper.Lock'],
    ['ZooKeeper read-/write-', [`read-${seq(0)}`, `guid-write-${seq(1)}`], 'zookeeper.SharedLock'],
    ['ZooKeeper election n_', [`n_${seq(0)}`, `guid-n_${seq(1)}`], 'zookeeper.Election'],
    ['ZooKeeper queue qn-', [`qn-${seq(0)}`, `qn-${seq(1)}`], 'zookeeper.Queue'],
  ])('%s', (_, children, id) => {
    expect(recipeOf('/app/x', children)).toBe(id);
  });

  it('tells kazoo Semaphore leases by the sibling <name>-__lock__, and reads nothing into hex names without it', () => {
    const leases = [hex32(1), hex32(2)];
    expect(recipeOf('/app/pool', leases, ['pool', 'pool-__lock__'])).toBe('kazoo.Semaphore');
    expect(recipeOf('/app/pool', leases, ['pool'])).toBeNull();
    expect(recipeOf('/app/pool', leases)).toBeNull();
    expect(recognizeLock({ path: '/app/pool', children: leases, siblings: ['pool', 'pool-__lock__'] })!.note).toContain('/app/pool-__lock__');
  });

  it("says a kazoo lock named <x>-__lock__ is the Semaphore's lock", () => {
    const lock = recognizeLock({ path: '/app/pool-__lock__', children: [kazooLock(1, 0)] })!;
    expect(lock.recipe.id).toBe('kazoo.Lock');
    expect(lock.note).toMatch(/^The lock kazoo's Semaphore \/app\/pool takes/);
  });

  it('tells a LockingQueue from a Queue by its entries/taken siblings', () => {
    const names = [`entry-100-${seq(3)}`];
    expect(recipeOf('/q/taken', names, ['entries', 'taken'])).toBe('kazoo.LockingQueue.taken');
    expect(recipeOf('/q/entries', names, ['entries', 'taken'])).toBe('kazoo.LockingQueue');
    expect(recipeOf('/q/taken', names)).toBe('kazoo.Queue');
  });

  it("notes Curator's SemaphoreV2 lock and leases when the sibling is there", () => {
    const locks = recognizeLock({ path: '/sem/locks', children: [curator(1, 'lock-', 0)], siblings: ['locks', 'leases'] })!;
    expect(locks.note).toContain("Curator's InterProcessSemaphoreV2 /sem");
    expect(recognizeLock({ path: '/sem/locks', children: [curator(1, 'lock-', 0)] })!.note).toBeNull();
    const leases = recognizeLock({ path: '/sem/leases', children: [curator(1, 'lease-', 0)], siblings: ['locks', 'leases'] })!;
    expect(leases.note).toContain('/sem/locks');
  });
});

describe('recognizeLock: what is not a lock', () => {
  it('refuses an empty directory, a mix of recipes and a single unknown name', () => {
    expect(recipeOf('/a', [])).toBeNull();
    expect(recipeOf('/a', [kazooLock(1, 0), curator(2, 'lock-', 1)])).toBeNull();
    expect(recipeOf('/a', [kazooLock(1, 0), kazooLock(2, 1), 'config'])).toBeNull();
    expect(recipeOf('/a', ['node-1', 'node-2'])).toBeNull();
  });

  it('needs exactly ten digits at the end', () => {
    expect(recipeOf('/a', [`${hex32(1)}__lock__000000001`])).toBeNull();
    expect(recipeOf('/a', [`qn-${seq(1)}x`])).toBeNull();
    expect(recipeOf('/a', [`${hex32(1).slice(1)}__lock__${seq(1)}`])).toBeNull(); // 31 hex digits is not kazoo's uuid
  });
});

describe('recognizeLock: order', () => {
  it('orders by the sequence suffix, not by name (protected Curator names and kazoo uuids)', () => {
    const names = [curator(9, 'lock-', 12), curator(1, 'lock-', 3), curator(5, 'lock-', 10), curator(7, 'lock-', 4)];
    const byName = [...names].sort();
    const lock = recognizeLock({ path: '/l', children: names })!;
    const order = lock.contenders.map((c) => c.sequence);
    expect(order).toEqual([3, 4, 10, 12]);
    expect(lock.contenders.map((c) => c.name)).not.toEqual(byName);
    const kazoo = recognizeLock({ path: '/k', children: [kazooLock(1, 2), kazooRead(2, 1), kazooLock(3, 0)] })!;
    expect(kazoo.contenders.map((c) => [c.sequence, c.role])).toEqual([
      [0, 'writer'],
      [1, 'reader'],
      [2, 'writer'],
    ]);
  });

  it('takes a queue by priority first, then sequence', () => {
    const q = recognizeLock({ path: '/q', children: [`entry-100-${seq(1)}`, `entry-001-${seq(5)}`, `entry-100-${seq(0)}`] })!;
    expect(q.contenders.map((c) => c.name)).toEqual([`entry-001-${seq(5)}`, `entry-100-${seq(0)}`, `entry-100-${seq(1)}`]);
  });
});

describe('recognizeLock: in-house patterns', () => {
  const jobs = compileLockPattern(lockPatternSchema.parse({ name: 'jobs', glob: 'job-*', kind: 'exclusive' }));

  it('are tried before the built-in recipes', () => {
    const children = [`job-lock-${seq(2)}`, `job-lock-${seq(1)}`];
    expect(recognizeLock({ path: '/a', children })!.recipe.id).toBe('zookeeper.Lock');
    const lock = recognizeLock({ path: '/a', children, patterns: [jobs] })!;
    expect(lock.recipe).toMatchObject({ id: 'config:jobs', label: 'jobs', library: 'config', kind: 'exclusive' });
    expect(lock.contenders.map((c) => c.sequence)).toEqual([1, 2]);
  });

  it('apply only under their root when they have one', () => {
    const scoped = compileLockPattern(lockPatternSchema.parse({ name: 'scoped', glob: 'slot*', kind: 'exclusive', under: '/pools' }));
    const children = [`slot${seq(1)}`];
    expect(recognizeLock({ path: '/pools/a', children, patterns: [scoped] })?.recipe.id).toBe('config:scoped');
    expect(recognizeLock({ path: '/pools', children, patterns: [scoped] })?.recipe.id).toBe('config:scoped');
    expect(recognizeLock({ path: '/poolsX/a', children, patterns: [scoped] })).toBeNull();
  });
});
