import { describe, expect, it } from 'vitest';
import { pruneDismissed, readDismissed, sameIds, storageKey, writeDismissed } from './dismissedAlerts';

function memoryStorage() {
  const map = new Map<string, string>();
  return { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v) };
}

describe('dismissed alerts', () => {
  it('round-trips through storage per ensemble', () => {
    const s = memoryStorage();
    writeDismissed(s, 'prod', new Set(['even-voters', 'down:h:1']));
    expect([...readDismissed(s, 'prod')]).toEqual(['even-voters', 'down:h:1']);
    expect(readDismissed(s, 'other').size).toBe(0);
  });
  it('survives garbage and missing storage', () => {
    const s = memoryStorage();
    s.setItem(storageKey('prod'), '{not json');
    expect(readDismissed(s, 'prod').size).toBe(0);
    s.setItem(storageKey('prod'), '[1, "a"]');
    expect([...readDismissed(s, 'prod')]).toEqual(['a']);
    expect(readDismissed(null, 'prod').size).toBe(0);
  });
  it('forgets dismissals whose condition cleared, so a recurrence shows again', () => {
    const pruned = pruneDismissed(new Set(['down:h:1', 'even-voters']), ['even-voters', 'behind:h:2']);
    expect([...pruned]).toEqual(['even-voters']);
    expect(sameIds(pruned, new Set(['even-voters']))).toBe(true);
    expect(sameIds(pruned, new Set())).toBe(false);
  });
});
