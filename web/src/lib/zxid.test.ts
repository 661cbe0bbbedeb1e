import { describe, expect, it } from 'vitest';
import { shortId, toHexId, zxidParts } from './zxid';

describe('toHexId', () => {
  it('keeps hex, lower-cased and unpadded', () => {
    expect(toHexId('0x00001A')).toBe('0x1a');
    expect(toHexId('0x0')).toBe('0x0');
  });
  it('converts decimal', () => {
    expect(toHexId('4294967297')).toBe('0x100000001');
    expect(toHexId('0')).toBe('0x0');
  });
  it('leaves anything else alone', () => {
    expect(toHexId('n/a')).toBe('n/a');
  });
});

describe('zxidParts', () => {
  it('splits epoch and counter', () => {
    expect(zxidParts('0x200000003')).toEqual({ epoch: 2, counter: 3 });
    expect(zxidParts('x')).toBeNull();
  });
});

describe('shortId', () => {
  it('elides long ids', () => {
    expect(shortId('0x1000a3b52c40001')).toBe('0x1000a3b…');
    expect(shortId('0x1a')).toBe('0x1a');
  });
});
