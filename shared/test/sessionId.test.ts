import { describe, expect, it } from 'vitest';
import { formatSessionId, formatZxid, NO_SESSION, zxidCounter, zxidEpoch } from '../src/sessionId.js';
import { seeded } from './support/random.js';

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

function randomInt64(random: () => number): bigint {
  const hi = BigInt(Math.floor(random() * 2 ** 32));
  const lo = BigInt(Math.floor(random() * 2 ** 32));
  return BigInt.asIntN(64, (hi << 32n) | lo);
}

describe('formatSessionId', () => {
  it('prints lower-case hex with 0x and no padding', () => {
    expect(formatSessionId(0n)).toBe('0x0');
    expect(formatSessionId(0n)).toBe(NO_SESSION);
    expect(formatSessionId(1n)).toBe('0x1');
    expect(formatSessionId(255n)).toBe('0xff');
    expect(formatSessionId(0x100003b9c6d0000n)).toBe('0x100003b9c6d0000');
    expect(formatSessionId(MAX_INT64)).toBe('0x7fffffffffffffff');
  });

  it('prints negative longs (as the Java client reads them) as unsigned 64-bit', () => {
    expect(formatSessionId(-1n)).toBe('0xffffffffffffffff');
    expect(formatSessionId(-2n)).toBe('0xfffffffffffffffe');
    expect(formatSessionId(MIN_INT64)).toBe('0x8000000000000000');
    // A server id of 0xff in the top byte makes every session id it issues negative.
    expect(formatSessionId(BigInt.asIntN(64, 0xff00017d3a4e0000n))).toBe('0xff00017d3a4e0000');
  });

  it('round-trips: signed and unsigned forms of the same 64 bits print the same, and parse back', () => {
    const random = seeded(3);
    for (let n = 0; n < 1000; n++) {
      const signed = randomInt64(random);
      const unsigned = BigInt.asUintN(64, signed);
      const text = formatSessionId(signed);
      expect(text).toMatch(/^0x(0|[1-9a-f][0-9a-f]{0,15})$/);
      expect(formatSessionId(unsigned)).toBe(text);
      expect(BigInt(text)).toBe(unsigned);
      expect(BigInt.asIntN(64, BigInt(text))).toBe(signed);
    }
  });
});

describe('formatZxid / zxidEpoch / zxidCounter', () => {
  it('splits the epoch (high 32 bits) from the counter (low 32 bits)', () => {
    const zxid = 0x500000003n;
    expect(formatZxid(zxid)).toBe('0x500000003');
    expect(zxidEpoch(zxid)).toBe(5);
    expect(zxidCounter(zxid)).toBe(3);
  });

  it('handles zero, the first zxid of an epoch and the last counter value', () => {
    expect(formatZxid(0n)).toBe('0x0');
    expect(zxidEpoch(0n)).toBe(0);
    expect(zxidCounter(0n)).toBe(0);
    expect(zxidEpoch(0x100000000n)).toBe(1);
    expect(zxidCounter(0x100000000n)).toBe(0);
    expect(zxidEpoch(0x1ffffffffn)).toBe(1);
    expect(zxidCounter(0x1ffffffffn)).toBe(0xffffffff);
  });

  it('treats negative zxids as unsigned 64-bit', () => {
    expect(formatZxid(-1n)).toBe('0xffffffffffffffff');
    expect(zxidEpoch(-1n)).toBe(0xffffffff);
    expect(zxidCounter(-1n)).toBe(0xffffffff);
    expect(zxidEpoch(MIN_INT64)).toBe(0x80000000);
    expect(zxidCounter(MIN_INT64)).toBe(0);
  });

  it('recombines: epoch * 2^32 + counter is the unsigned zxid', () => {
    const random = seeded(8);
    for (let n = 0; n < 1000; n++) {
      const zxid = randomInt64(random);
      const epoch = zxidEpoch(zxid);
      const counter = zxidCounter(zxid);
      expect(Number.isInteger(epoch) && epoch >= 0 && epoch <= 0xffffffff).toBe(true);
      expect(Number.isInteger(counter) && counter >= 0 && counter <= 0xffffffff).toBe(true);
      expect((BigInt(epoch) << 32n) + BigInt(counter)).toBe(BigInt.asUintN(64, zxid));
      expect(BigInt(formatZxid(zxid))).toBe(BigInt.asUintN(64, zxid));
    }
  });
});
