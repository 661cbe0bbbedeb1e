/** The config's `locks` section and in-house recipes declared in it. */
import { describe, expect, it } from 'vitest';
import { compileLockPattern, globToRegExp, lockPatternSchema, locksConfigSchema } from '../../src/locks/index.js';
import { seq } from './support.js';

const issues = (value: unknown) => {
  const r = locksConfigSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('locksConfigSchema', () => {
  it('accepts the documented example', () => {
    expect(
      issues({
        roots: ['/app/locks'],
        patterns: [
          { name: 'jobs', glob: 'job-*', kind: 'exclusive', waitersWatchPredecessor: true },
          { name: 'rw', regex: '^(r|w)-[0-9]{10}$', kind: 'readWrite', readerMarker: 'r-', writerMarker: 'w-' },
          { name: 'pool', glob: 'slot-*', kind: 'semaphore', permits: 4, under: '/app/pools' },
        ],
        permits: { '/app/sem/leases': 3 },
        herdMinWatchers: 10,
        heldLongMs: 600_000,
      }),
    ).toEqual([]);
  });

  it('says which field is wrong', () => {
    expect(issues({ roots: ['app'] })).toEqual(['roots.0: must be a ZooKeeper path: absolute, no trailing /']);
    expect(issues({ patterns: [{ name: 'a', kind: 'exclusive' }] })).toEqual(['patterns.0.glob: give exactly one of "glob" and "regex"']);
    expect(issues({ patterns: [{ name: 'a', glob: 'x*', regex: 'x', kind: 'exclusive' }] })).toEqual([
      'patterns.0.glob: give exactly one of "glob" and "regex"',
    ]);
    expect(issues({ patterns: [{ name: 'a', regex: '(', kind: 'exclusive' }] })).toEqual(['patterns.0.regex: is not a valid regular expression']);
    expect(issues({ patterns: [{ name: 'a', glob: 'x*', kind: 'readWrite', readerMarker: 'r' }] })).toEqual([
      'patterns.0.writerMarker: a readWrite pattern needs writerMarker',
    ]);
    expect(issues({ patterns: [{ name: 'a', glob: 'x*', kind: 'readWrite', readerMarker: 'r', writerMarker: 'r' }] })).toEqual([
      'patterns.0.writerMarker: must differ from readerMarker',
    ]);
    expect(issues({ patterns: [{ name: 'a', glob: 'x*', kind: 'exclusive', readerMarker: 'r' }] })).toEqual([
      'patterns.0.readerMarker: reader and writer markers are for kind "readWrite" only',
    ]);
    expect(issues({ patterns: [{ name: 'a', glob: 'x*', kind: 'exclusive', permits: 2 }] })).toEqual([
      'patterns.0.permits: permits is for kind "semaphore" only',
    ]);
    expect(issues({ patterns: [{ name: 'a', glob: 'x*', kind: 'mutex' }] })).toHaveLength(1);
    expect(
      issues({
        patterns: [
          { name: 'a', glob: 'x*', kind: 'exclusive' },
          { name: 'a', glob: 'y*', kind: 'queue' },
        ],
      }),
    ).toEqual(['patterns.1.name: duplicate name "a"']);
    expect(issues({ herdMinWatchers: 1 })).toHaveLength(1);
    expect(issues({ permits: { '/a': 0 } })).toHaveLength(1);
    expect(issues({ surprise: true })).toHaveLength(1);
  });
});

describe('globToRegExp', () => {
  it('matches whole names with * and ?, everything else literally', () => {
    expect(globToRegExp('job-*').test(`job-${seq(1)}`)).toBe(true);
    expect(globToRegExp('job-*').test(`xjob-${seq(1)}`)).toBe(false);
    expect(globToRegExp('a?c').test('abc')).toBe(true);
    expect(globToRegExp('a?c').test('abbc')).toBe(false);
    expect(globToRegExp('a.c*').test('abc1')).toBe(false);
    expect(globToRegExp('(x)+*').test('(x)+1')).toBe(true);
  });
});

describe('compileLockPattern', () => {
  it('reads roles from the markers and refuses names with both or neither', () => {
    const rw = compileLockPattern(lockPatternSchema.parse({ name: 'rw', glob: '*', kind: 'readWrite', readerMarker: 'rd-', writerMarker: 'wr-' }));
    expect(rw.holding).toBe('readersBeforeWriter');
    expect(rw.parse(`rd-${seq(4)}`)).toEqual({ sequence: 4, role: 'reader' });
    expect(rw.parse(`wr-${seq(5)}`)).toEqual({ sequence: 5, role: 'writer' });
    expect(rw.parse(`rd-wr-${seq(6)}`)).toBeNull();
    expect(rw.parse(`xx-${seq(6)}`)).toBeNull();
  });

  it('needs the sequence suffix, and only calls a leak where waiters are declared to watch their predecessor', () => {
    const plain = compileLockPattern(lockPatternSchema.parse({ name: 'p', glob: 'job-*', kind: 'exclusive' }));
    expect(plain.parse('job-abc')).toBeNull();
    expect(plain.waiterWatch).toBe('unlisted');
    const watched = compileLockPattern(lockPatternSchema.parse({ name: 'w', glob: 'job-*', kind: 'election', waitersWatchPredecessor: true }));
    expect(watched.waiterWatch).toBe('data');
    expect(watched.holding).toBe('lowest');
    const queue = compileLockPattern(lockPatternSchema.parse({ name: 'q', glob: 'item-*', kind: 'queue' }));
    expect([queue.holding, queue.waiterWatch, queue.parse(`item-${seq(1)}`)?.role]).toEqual(['none', 'none', 'item']);
    const sem = compileLockPattern(lockPatternSchema.parse({ name: 's', regex: '^slot-\\d{10}$', kind: 'semaphore', permits: 3 }));
    expect([sem.holding, sem.permits, sem.parse(`slot-${seq(1)}`)?.role]).toEqual(['firstN', 3, 'lease']);
  });
});
