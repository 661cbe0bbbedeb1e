import { describe, expect, it } from 'vitest';
import { compareVersionCores, normalizeSessionId, normalizeZxid, parseZxid, toInteger, toNumber, versionCore, zxidParts } from '../../src/ensemble/index.js';

describe('zxids', () => {
  it('parses hex, decimal and JSON numbers alike', () => {
    expect(parseZxid('0x10000003a')).toBe(0x10000003an);
    expect(parseZxid('0X10000003A')).toBe(0x10000003an);
    expect(parseZxid('4294967354')).toBe(0x10000003an);
    expect(parseZxid(4294967354)).toBe(0x10000003an);
    expect(normalizeZxid('0x0000000100000001')).toBe('0x100000001');
    expect(zxidParts('0x50000002a')).toEqual({ value: 0x50000002an, epoch: 5, counter: 42 });
  });

  it('refuses what is not a zxid', () => {
    for (const bad of ['', 'zz', '0x', '-1', '0x12345678901234567', '18446744073709551616', null, undefined, 1.5, -3])
      expect(parseZxid(bad as never)).toBeNull();
  });
});

describe('versions', () => {
  it('compares the x.y.z part only', () => {
    expect(versionCore('3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC')).toBe('3.8.0');
    expect(versionCore('3.4.14-4c25d480e66aadd371de8bd2fd8da255ac140bcf, built on 03/06/2019 16:18 GMT')).toBe('3.4.14');
    expect(versionCore('3.9.2')).toBe('3.9.2');
    expect(versionCore('unknown')).toBeNull();
    expect(versionCore(null)).toBeNull();
    expect(compareVersionCores('3.10.0', '3.9.2')).toBeGreaterThan(0);
    expect(compareVersionCores('3.8.0', '3.8.0')).toBe(0);
    expect(compareVersionCores('3.4.14', '3.5.0')).toBeLessThan(0);
  });
});

describe('numbers and session ids', () => {
  it('reads numbers leniently', () => {
    expect([toNumber(' 3 '), toNumber('1.2857'), toNumber('-'), toNumber(''), toNumber('NaN'), toNumber(7), toNumber(Infinity)]).toEqual([
      3,
      1.2857,
      null,
      null,
      null,
      7,
      null,
    ]);
    expect([toInteger('0x1f'), toInteger('12'), toInteger('1.5'), toInteger(undefined)]).toEqual([31, 12, null, null]);
  });

  it('normalises session ids from every source', () => {
    expect(normalizeSessionId('0x100002F75570004')).toBe('0x100002f75570004');
    expect(normalizeSessionId('72057797870026756')).toBe('0x100002f75570004');
    expect(normalizeSessionId(72057797870026756n)).toBe('0x100002f75570004');
    expect(normalizeSessionId(2 ** 56 + 4)).toBeNull(); // not a safe integer: refuse rather than guess
    expect(normalizeSessionId(12)).toBe('0xc');
    expect(normalizeSessionId('-1')).toBe('0xffffffffffffffff');
    expect(normalizeSessionId('nope')).toBeNull();
  });
});
