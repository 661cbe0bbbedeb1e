import { describe, expect, it } from 'vitest';
import { MEMBER_HISTORY_LIMIT, reduceMemberHistory } from './healthEntries';

describe('reduceMemberHistory', () => {
  const point = (at: number) => ({ at, latencyAvg: 1, latencyMax: 2, outstanding: 0, connections: 3, znodeCount: 10, serving: true });
  it('replaces on full and appends per member', () => {
    const full = reduceMemberHistory(undefined, { kind: 'history', mode: 'full', history: { a: [point(1)] } }, 1);
    const next = reduceMemberHistory(full, { kind: 'history', mode: 'append', history: { a: [point(2)], b: [point(2)] } }, 1);
    expect(next.history.a?.map((p) => p.at)).toEqual([1, 2]);
    expect(next.history.b?.map((p) => p.at)).toEqual([2]);
    expect(full.history.a).toHaveLength(1);
  });
  it('keeps only the newest points of a member in a tab left open for long', () => {
    const full = reduceMemberHistory(
      undefined,
      { kind: 'history', mode: 'full', history: { a: Array.from({ length: MEMBER_HISTORY_LIMIT }, (_, i) => point(i)) } },
      1,
    );
    const next = reduceMemberHistory(full, { kind: 'history', mode: 'append', history: { a: [point(MEMBER_HISTORY_LIMIT)] } }, 1);
    expect(next.history.a).toHaveLength(MEMBER_HISTORY_LIMIT);
    expect(next.history.a?.at(0)?.at).toBe(1);
    expect(next.history.a?.at(-1)?.at).toBe(MEMBER_HISTORY_LIMIT);
  });
});
