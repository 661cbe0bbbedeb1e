/** Who a contender is, from its data: kazoo identifier, Curator participant id or client IP. */
import { describe, expect, it } from 'vitest';
import { decodeContenderData, decodeCuratorData, decodeKazooIdentifier, isIpAddress } from '../../src/locks/index.js';
import { utf8 } from './support.js';

describe('decodeKazooIdentifier', () => {
  it('reads the identifier as UTF-8; empty or binary is none', () => {
    expect(decodeKazooIdentifier(utf8('worker-7 on host-3 ✓'))).toBe('worker-7 on host-3 ✓');
    expect(decodeKazooIdentifier(new Uint8Array(0))).toBeNull();
    expect(decodeKazooIdentifier(null)).toBeNull();
    expect(decodeKazooIdentifier(new Uint8Array([0x12, 0x34]))).toBeNull();
  });
});

describe('decodeCuratorData', () => {
  it("tells Curator's default data (the client's IP) from a participant id", () => {
    expect(decodeCuratorData(utf8('10.1.2.3'))).toEqual({ participantId: null, clientIp: '10.1.2.3' });
    expect(decodeCuratorData(utf8('fe80:0:0:0:1c2d:3e4f:5a6b:7c8d%eth0'))).toEqual({ participantId: null, clientIp: 'fe80:0:0:0:1c2d:3e4f:5a6b:7c8d%eth0' });
    expect(decodeCuratorData(utf8('scheduler-2'))).toEqual({ participantId: 'scheduler-2', clientIp: null });
    expect(decodeCuratorData(utf8('10.1.2.300'))).toEqual({ participantId: '10.1.2.300', clientIp: null });
    expect(decodeCuratorData(null)).toEqual({ participantId: null, clientIp: null });
  });

  it('isIpAddress', () => {
    expect(['127.0.1.1', '::1', '0:0:0:0:0:0:0:1'].map(isIpAddress)).toEqual([true, true, true]);
    expect(['1.2.3', 'host', '12:34'].map(isIpAddress)).toEqual([false, false, false]);
  });
});

describe('decodeContenderData', () => {
  it('labels by library and role', () => {
    expect(decodeContenderData('kazoo', 'contender', utf8('job-1'))).toEqual({ kind: 'identifier', text: 'job-1' });
    expect(decodeContenderData('curator', 'contender', utf8('127.0.1.1'))).toEqual({ kind: 'client-ip', text: '127.0.1.1' });
    expect(decodeContenderData('curator', 'contender', utf8('leader-a'))).toEqual({ kind: 'participant-id', text: 'leader-a' });
    expect(decodeContenderData('zookeeper', 'contender', utf8('host-1'))).toEqual({ kind: 'text', text: 'host-1' });
    expect(decodeContenderData('kazoo', 'item', utf8('payload'))).toEqual({ kind: 'text', text: 'payload' });
    // ZooKeeper's WriteLock.java writes {0x12, 0x34} by default.
    expect(decodeContenderData('zookeeper', 'contender', new Uint8Array([0x12, 0x34]))).toEqual({ kind: 'binary', text: '2 bytes' });
    expect(decodeContenderData('kazoo', 'contender', null)).toEqual({ kind: 'empty', text: null });
  });

  it('cuts long values', () => {
    const long = decodeContenderData('kazoo', 'contender', utf8('x'.repeat(2_000)));
    expect(long.text).toBe(`${'x'.repeat(512)}…`);
  });
});
