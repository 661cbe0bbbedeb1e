/** How rates read, and the sessions summed by client host, busiest first. */
import { describe, expect, it } from 'vitest';
import type { EnsembleSession } from '@keeper/shared';
import { sessions } from '../../testSupport/ensembleFixtures';
import { groupByHost, rateText } from './rates';
import { sortSessions } from './sessionTable';

const base = sessions(0).sessions[0]!;
const at = (client: string, requestsPerSecond: number | null, id: number): EnsembleSession => ({
  ...base,
  sessionId: `0x${id.toString(16)}`,
  client,
  requestsPerSecond,
});

describe('rateText', () => {
  it('reads tenths below 10/s and whole numbers with separators above; none is a dash', () => {
    expect(rateText(0.1)).toBe('0.1');
    expect(rateText(0)).toBe('0');
    expect(rateText(9.5)).toBe('9.5');
    expect(rateText(1_900.4)).toBe('1,900');
    expect(rateText(null)).toBe('—');
  });
});

describe('groupByHost', () => {
  it('sums sessions and rates per client host, the busiest first, counting sessions without a rate', () => {
    const list = [
      ...Array.from({ length: 120 }, (_, i) => at(`10.0.0.5:${5000 + i}`, 15.8, i + 1)),
      at('10.0.0.9:4000', 0.1, 500),
      at('10.0.0.9:4001', null, 501),
      at('', null, 502),
    ];
    const groups = groupByHost(list);
    expect(groups.map((g) => [g.host, g.sessions, g.requestsPerSecond === null ? null : Math.round(g.requestsPerSecond), g.withoutRate])).toEqual([
      ['10.0.0.5', 120, 1_896, 0],
      ['10.0.0.9', 2, 0, 1],
      ['', 1, null, 1],
    ]);
  });
});

describe('sort by rate', () => {
  it('puts the busiest first and sessions without a rate last, whichever the direction', () => {
    const list = [at('a:1', 2, 1), at('a:2', null, 2), at('a:3', 300, 3), at('a:4', 0.1, 4)];
    expect(sortSessions(list, { key: 'rate', dir: 'desc' }).map((s) => s.requestsPerSecond)).toEqual([300, 2, 0.1, null]);
    expect(sortSessions(list, { key: 'rate', dir: 'asc' }).map((s) => s.requestsPerSecond)).toEqual([0.1, 2, 300, null]);
  });
});
