import { describe, expect, it } from 'vitest';
import { describeNeed, readersOf } from './accessModel';

describe('readersOf', () => {
  it('lists only the entries that grant READ, with how to get each', () => {
    const needs = readersOf([
      { scheme: 'digest', id: 'alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=', perms: 'rwcda', permissions: 31 },
      { scheme: 'world', id: 'anyone', perms: 'a', permissions: 16 },
      { scheme: 'ip', id: '10.0.0.0/8', perms: 'r', permissions: 1 },
    ]);
    expect(needs.map((n) => `${n.scheme}:${n.id}`)).toEqual(['digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=', 'ip:10.0.0.0/8']);
    expect(needs[0]?.how).toContain('"credential": "alice:<password>"');
    expect(needs[0]?.how).toContain('"auth" list');
    expect(needs[1]?.how).toBe('run Keeper from an address in 10.0.0.0/8');
  });

  it('says what Keeper cannot present', () => {
    expect(describeNeed({ scheme: 'sasl', id: 'zk@EXAMPLE.COM', perms: 'r', permissions: 1 }).how).toMatch(/only present digest/);
  });
});
