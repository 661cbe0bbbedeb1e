import { describe, expect, it } from 'vitest';
import { compareAddresses, compareIds, DEFAULT_SORT, filterSessions, nextSort, sameSessionId, sortSessions } from './sessionTable';
import { sessions } from '../../testSupport/ensembleFixtures';

const list = sessions(12).sessions;

describe('sorting', () => {
  it('puts flagged sessions first by default, the longest silent first among them', () => {
    const sorted = sortSessions(list, DEFAULT_SORT);
    const flagged = sorted.filter((s) => s.flags.length > 0);
    expect(sorted.slice(0, flagged.length)).toEqual(flagged);
    expect(sorted[0]?.flags.length).toBeGreaterThanOrEqual(sorted[flagged.length - 1]?.flags.length ?? 0);
  });
  it('sorts ids numerically and addresses by host then port', () => {
    expect(compareIds('0x2', '0x10')).toBeLessThan(0);
    expect(compareIds('0xA', '10')).toBe(0);
    expect(compareAddresses('10.0.4.9:80', '10.0.4.10:1')).toBeLessThan(0);
    expect(compareAddresses('h:2191', 'h:10000')).toBeLessThan(0);
  });
  it('keeps missing figures last in both directions', () => {
    const lastResponseNull = list.find((s) => s.lastResponseAt === null)!;
    for (const dir of ['asc', 'desc'] as const) {
      const sorted = sortSessions(list, { key: 'lastResponse', dir });
      expect(sorted[sorted.length - 1]).toBe(lastResponseNull);
    }
  });
  it('toggles the direction on a second click, starts each column in its useful direction', () => {
    expect(nextSort(DEFAULT_SORT, 'latency')).toEqual({ key: 'latency', dir: 'desc' });
    expect(nextSort({ key: 'latency', dir: 'desc' }, 'latency')).toEqual({ key: 'latency', dir: 'asc' });
    expect(nextSort(DEFAULT_SORT, 'lastResponse')).toEqual({ key: 'lastResponse', dir: 'asc' });
  });
});

describe('filtering', () => {
  it('matches ids with or without 0x, clients, members, ephemeral paths and flags; all tokens must match', () => {
    const console = list.find((s) => s.isConsole)!;
    expect(filterSessions(list, console.sessionId.slice(2), false)).toContain(console);
    expect(filterSessions(list, 'console', false)).toEqual([console]);
    expect(filterSessions(list, '/queue/tasks', false).map((s) => s.ephemerals[0])).toEqual(['/queue/tasks/worker-7', '/queue/tasks/worker-3']);
    expect(filterSessions(list, 'long-timeout worker-7', false)).toHaveLength(1);
    expect(filterSessions(list, 'nothing-like-this', false)).toEqual([]);
  });
  it('shows only flagged sessions on request', () => {
    expect(filterSessions(list, '', true).every((s) => s.flags.length > 0)).toBe(true);
  });
});

describe('sameSessionId', () => {
  it('compares ids in any notation', () => {
    expect(sameSessionId('0x00001A', '0x1a')).toBe(true);
    expect(sameSessionId('26', '0x1a')).toBe(true);
    expect(sameSessionId('0x1b', '0x1a')).toBe(false);
  });
});
