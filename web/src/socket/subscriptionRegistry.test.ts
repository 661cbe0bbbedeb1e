import { describe, expect, it } from 'vitest';
import { parseSubscriptionKey, SubscriptionRegistry, subscriptionKey } from './subscriptionRegistry';

describe('SubscriptionRegistry', () => {
  it('reports only the first acquire and the last release', () => {
    const r = new SubscriptionRegistry();
    const k = subscriptionKey('prod', '/a');
    expect(r.acquire(k)).toBe(true);
    expect(r.acquire(k)).toBe(false);
    expect(r.release(k)).toBe(false);
    expect(r.has(k)).toBe(true);
    expect(r.release(k)).toBe(true);
    expect(r.has(k)).toBe(false);
  });
  it('ignores a release with nothing held', () => {
    const r = new SubscriptionRegistry();
    expect(r.release('x')).toBe(false);
    expect(r.keys()).toEqual([]);
  });
  it('round-trips keys', () => {
    expect(parseSubscriptionKey(subscriptionKey('a-b', '/x/y'))).toEqual({ ensemble: 'a-b', path: '/x/y' });
  });
});
