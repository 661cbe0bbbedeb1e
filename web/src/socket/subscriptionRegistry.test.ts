import { describe, expect, it } from 'vitest';
import { clientMessageSchema } from '@keeper/shared';
import { subscribeMessage, SubscriptionRegistry, targetKey, unsubscribeMessage, type SubscriptionTarget } from './subscriptionRegistry';

const znodeA: SubscriptionTarget = { topic: 'znode', ensemble: 'prod', params: { path: '/a' } };

describe('SubscriptionRegistry', () => {
  it('reports only the first acquire and the last release', () => {
    const r = new SubscriptionRegistry();
    const k = targetKey(znodeA);
    expect(r.acquire(znodeA)).toBe(true);
    expect(r.acquire({ ...znodeA, params: { path: '/a' } })).toBe(false);
    expect(r.count(k)).toBe(2);
    expect(r.release(k)).toBe(false);
    expect(r.has(k)).toBe(true);
    expect(r.release(k)).toBe(true);
    expect(r.has(k)).toBe(false);
    expect(r.targets()).toEqual([]);
  });
  it('ignores a release with nothing held', () => {
    const r = new SubscriptionRegistry();
    expect(r.release('x')).toBe(false);
    expect(r.targets()).toEqual([]);
  });
});

describe('targets', () => {
  it('have one key per topic, ensemble and parameters, whatever the order of the parameters', () => {
    const session: SubscriptionTarget = { topic: 'consoleSession', ensemble: 'a-b', params: {} };
    const health: SubscriptionTarget = { topic: 'ensembleHealth', ensemble: 'a-b', params: {} };
    const keys = new Set([znodeA, { ...znodeA, params: { path: '/b' } }, { ...znodeA, ensemble: 'test' }, session, health].map(targetKey));
    expect(keys.size).toBe(5);
    expect(targetKey({ topic: 'znode', ensemble: 'p', params: { path: '/a', x: 1 } })).toBe(
      targetKey({ topic: 'znode', ensemble: 'p', params: { x: 1, path: '/a' } }),
    );
  });
  it('map to the protocol messages', () => {
    const subscribe = subscribeMessage(znodeA, 's1');
    expect(subscribe).toEqual({ type: 'subscribe', topic: 'znode', ensemble: 'prod', params: { path: '/a' }, id: 's1' });
    expect(subscribeMessage({ topic: 'ensembleHealth', ensemble: 'p', params: {} }, 's2')).toEqual({
      type: 'subscribe',
      topic: 'ensembleHealth',
      ensemble: 'p',
      params: {},
      id: 's2',
    });
    const unsubscribe = unsubscribeMessage({ topic: 'consoleSession', ensemble: 'p', params: {} });
    expect(unsubscribe).toEqual({ type: 'unsubscribe', topic: 'consoleSession', ensemble: 'p', params: {} });
    // What the web sends is what the server parses.
    expect(clientMessageSchema.parse(subscribe)).toEqual(subscribe);
    expect(clientMessageSchema.parse(unsubscribe)).toEqual(unsubscribe);
  });
});
