import { describe, expect, it } from 'vitest';
import { encodeZnodeData } from '@keeper/shared';
import { pickMode, renderData, tokenizeJson, truncationNotice, viewModesFor } from './dataView';

describe('viewModesFor', () => {
  it('offers JSON first for JSON and hex first for binary', () => {
    expect(viewModesFor(encodeZnodeData(new TextEncoder().encode('{"a":1}')))[0]).toBe('json');
    expect(viewModesFor(encodeZnodeData(new Uint8Array([0, 1, 2])))).toEqual(['hex', 'base64']);
  });
});

describe('pickMode', () => {
  it('keeps a choice the data offers and falls back otherwise', () => {
    const json = encodeZnodeData(new TextEncoder().encode('{"a":1}'));
    const bin = encodeZnodeData(new Uint8Array([0, 1]));
    expect(pickMode(json, 'hex')).toBe('hex');
    expect(pickMode(bin, 'json')).toBe('hex');
    expect(pickMode(json, null)).toBe('json');
  });
});

describe('renderData', () => {
  it('pretty-prints JSON', () => {
    const d = encodeZnodeData(new TextEncoder().encode('{"a":[1,2]}'));
    expect(renderData(d, 'json')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
  });
  it('hex-dumps binary and text alike', () => {
    const d = encodeZnodeData(new Uint8Array([0x00, 0x41, 0xff]));
    expect(renderData(d, 'hex')).toBe(`00000000  00 41 ff${' '.repeat(39)}  .A.`);
    expect(renderData(d, 'base64')).toBe('AEH/');
    const t = encodeZnodeData(new TextEncoder().encode('hé'));
    expect(renderData(t, 'base64')).toBe('aMOp');
  });
});

describe('truncationNotice', () => {
  it('says how much of how much', () => {
    const big = encodeZnodeData(new Uint8Array(812 * 1024).fill(0x61));
    expect(truncationNotice(big)).toBe('showing first 64 KiB of 812 KiB');
    expect(truncationNotice(encodeZnodeData(new Uint8Array([1])))).toBeNull();
  });
});

describe('tokenizeJson', () => {
  it('classifies keys, strings, numbers and literals and loses nothing', () => {
    const text = '{\n  "k": "v",\n  "n": -1.5e3,\n  "t": [true, null]\n}';
    const tokens = tokenizeJson(text);
    expect(tokens.map((t) => t.text).join('')).toBe(text);
    expect(tokens.filter((t) => t.kind === 'key').map((t) => t.text)).toEqual(['"k"', '"n"', '"t"']);
    expect(tokens.filter((t) => t.kind === 'string').map((t) => t.text)).toEqual(['"v"']);
    expect(tokens.filter((t) => t.kind === 'number').map((t) => t.text)).toEqual(['-1.5e3']);
    expect(tokens.filter((t) => t.kind === 'literal').map((t) => t.text)).toEqual(['true', 'null']);
  });
});
