import { describe, expect, it } from 'vitest';
import { isProtectedFromCreate, isProtectedFromDelete, isUnderZookeeper } from '../src/protectedPaths.js';

describe('what Keeper leaves to ZooKeeper (one rule for server and web)', () => {
  it('never deletes the root or ZooKeeper’s own nodes, but may delete a stray node under /zookeeper', () => {
    for (const p of ['/', '/zookeeper', '/zookeeper/config', '/zookeeper/quota', '/zookeeper/quota/app/zookeeper_limits'])
      expect(isProtectedFromDelete(p), p).toBe(true);
    for (const p of ['/zookeeper/evil', '/zookeeperish', '/app']) expect(isProtectedFromDelete(p), p).toBe(false);
  });

  it('creates nothing at the root or at or under /zookeeper', () => {
    for (const p of ['/', '/zookeeper', '/zookeeper/evil', '/zookeeper/quota/x']) expect(isProtectedFromCreate(p), p).toBe(true);
    for (const p of ['/zookeeperish', '/app/zookeeper']) expect(isProtectedFromCreate(p), p).toBe(false);
  });

  it('knows /zookeeper’s subtree by whole segments', () => {
    expect(isUnderZookeeper('/zookeeper')).toBe(true);
    expect(isUnderZookeeper('/zookeeper/x/y')).toBe(true);
    expect(isUnderZookeeper('/zookeeperish')).toBe(false);
    expect(isUnderZookeeper('/')).toBe(false);
  });
});
