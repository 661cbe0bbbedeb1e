import { describe, expect, it } from 'vitest';
import { parseTargetKey, subscribeMessage, SubscriptionRegistry, targetKey, unsubscribeMessage } from './subscriptionRegistry';

describe('SubscriptionRegistry', () => {
  it('reports only the first acquire and the last release', () => {
    const r = new SubscriptionRegistry();
    const k = targetKey({ kind: 'znode', ensemble: 'prod', path: '/a' });
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
});

describe('targets', () => {
  it('round-trip through their keys', () => {
    const z = { kind: 'znode', ensemble: 'a-b', path: '/x/y' } as const;
    const e = { kind: 'ensemble', ensemble: 'a-b' } as const;
    expect(parseTargetKey(targetKey(z))).toEqual(z);
    expect(parseTargetKey(targetKey(e))).toEqual(e);
    expect(targetKey(z)).not.toBe(targetKey(e));
  });
  it('map to the protocol messages', () => {
    expect(subscribeMessage({ kind: 'znode', ensemble: 'p', path: '/a' }, 's1')).toEqual({ type: 'subscribe', ensemble: 'p', path: '/a', id: 's1' });
    expect(subscribeMessage({ kind: 'ensemble', ensemble: 'p' }, 's2')).toEqual({ type: 'watchEnsemble', ensemble: 'p', id: 's2' });
    expect(unsubscribeMessage({ kind: 'ensemble', ensemble: 'p' })).toEqual({ type: 'unwatchEnsemble', ensemble: 'p' });
  });
});
