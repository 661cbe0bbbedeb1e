import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_PREVIEW_BYTES, encodeZnodeData, fromBase64, hexDump, toBase64 } from '../src/znodeData.js';
import { referenceBase64, seeded } from './support/random.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array(b);

function randomBytes(n: number, random: () => number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(random() * 256);
  return out;
}

describe('encodeZnodeData: empty values', () => {
  it('treats null and zero bytes as empty text', () => {
    const empty = { encoding: 'utf8', value: '', size: 0, truncated: false };
    expect(encodeZnodeData(null)).toEqual(empty);
    expect(encodeZnodeData(new Uint8Array(0))).toEqual(empty);
    expect(encodeZnodeData(null, 0)).toEqual(empty);
  });
});

describe('encodeZnodeData: text', () => {
  it('decodes UTF-8 text', () => {
    expect(encodeZnodeData(utf8('hello'))).toEqual({ encoding: 'utf8', value: 'hello', size: 5, truncated: false });
    const s = 'grüße, 世界 \u{1F600}';
    expect(encodeZnodeData(utf8(s))).toEqual({ encoding: 'utf8', value: s, size: utf8(s).length, truncated: false });
  });

  it('allows tab, newline and carriage return', () => {
    const s = 'a\tb\nc\r\nd';
    expect(encodeZnodeData(utf8(s))).toMatchObject({ encoding: 'utf8', value: s });
  });

  it('reports size in bytes, not characters', () => {
    expect(encodeZnodeData(utf8('é')).size).toBe(2);
    expect(encodeZnodeData(utf8('\u{1F600}')).size).toBe(4);
  });
});

describe('encodeZnodeData: JSON detection', () => {
  it('recognises objects and arrays', () => {
    for (const s of ['{}', '[]', '{"a":1,"b":[true,null]}', '[1,"two",{"three":3}]', '  {"padded": true}\n']) {
      expect(encodeZnodeData(utf8(s))).toEqual({ encoding: 'json', value: s, size: utf8(s).length, truncated: false });
    }
  });

  it('leaves JSON scalars as plain text', () => {
    for (const s of ['"a string"', '42', '-1.5e3', 'true', 'false', 'null']) {
      expect(encodeZnodeData(utf8(s)).encoding).toBe('utf8');
    }
  });

  it('leaves text that only looks like JSON as plain text', () => {
    for (const s of ['{', '{"a":', '[1,2', '{a:1}', "{'a':1}", '[1,]', '{} trailing', 'x{"a":1}']) {
      expect(encodeZnodeData(utf8(s)).encoding, s).toBe('utf8');
    }
  });

  it('never calls a truncated value JSON, even when the shown prefix parses', () => {
    const s = '[1]          ';
    const r = encodeZnodeData(utf8(s), 3);
    expect(r).toEqual({ encoding: 'utf8', value: '[1]', size: s.length, truncated: true });
  });
});

describe('encodeZnodeData: binary', () => {
  it('sends values with control characters as base64', () => {
    for (const b of [bytes(0), bytes(0x61, 0x00, 0x62), bytes(0x1b, 0x5b, 0x41), bytes(0x61, 0x7f), bytes(0x01), bytes(0x1f)]) {
      expect(encodeZnodeData(b)).toEqual({ encoding: 'base64', value: referenceBase64(b), size: b.length, truncated: false });
    }
  });

  it('sends invalid UTF-8 as base64', () => {
    for (const b of [bytes(0xff), bytes(0xff, 0xfe, 0x41, 0x42), bytes(0xc3, 0x28, 0x61), bytes(0x80, 0x61, 0x62, 0x63, 0x64)]) {
      expect(encodeZnodeData(b)).toEqual({ encoding: 'base64', value: referenceBase64(b), size: b.length, truncated: false });
    }
  });

  it('sends a serialized Java long (big-endian bytes) as base64', () => {
    const b = bytes(0, 0, 0, 0, 0, 0, 0x30, 0x39);
    expect(encodeZnodeData(b)).toMatchObject({ encoding: 'base64', value: 'AAAAAAAAMDk=' });
  });

  // BUG (reported): decodeUtf8 retries without the last 1-3 bytes even when the value was
  // NOT truncated, and without checking those bytes start a multi-byte sequence, so
  // invalid bytes at the end of a complete value are silently dropped and it is shown as text.
  it('does not drop invalid trailing bytes of a complete value (0xff)', () => {
    const b = bytes(0x68, 0x69, 0xff);
    expect(encodeZnodeData(b)).toEqual({ encoding: 'base64', value: referenceBase64(b), size: 3, truncated: false });
  });

  it('does not drop an incomplete multi-byte sequence at the end of a complete value', () => {
    const b = new Uint8Array([...utf8('hello'), 0xe2, 0x82]);
    expect(encodeZnodeData(b)).toEqual({ encoding: 'base64', value: referenceBase64(b), size: 7, truncated: false });
  });

  it('treats a byte that cannot start a UTF-8 sequence at the truncation point as binary', () => {
    // 0xff is never valid UTF-8, so this is not "a character cut by truncation".
    const b = new Uint8Array([...utf8('abc'), 0xff, ...utf8('defgh')]);
    expect(encodeZnodeData(b, 4)).toEqual({ encoding: 'base64', value: referenceBase64(b.subarray(0, 4)), size: 9, truncated: true });
  });
});

describe('encodeZnodeData: truncation', () => {
  it('keeps values at exactly the limit whole', () => {
    expect(encodeZnodeData(utf8('abcd'), 4)).toEqual({ encoding: 'utf8', value: 'abcd', size: 4, truncated: false });
  });

  it('truncates text beyond the limit and keeps the real size', () => {
    expect(encodeZnodeData(utf8('abcdef'), 4)).toEqual({ encoding: 'utf8', value: 'abcd', size: 6, truncated: true });
  });

  it('truncates binary beyond the limit: base64 of the first `limit` bytes, real size', () => {
    const b = bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    expect(encodeZnodeData(b, 4)).toEqual({ encoding: 'base64', value: referenceBase64(b.subarray(0, 4)), size: 10, truncated: true });
    expect(fromBase64(encodeZnodeData(b, 4).value)).toEqual(b.subarray(0, 4));
  });

  it('uses DEFAULT_DATA_PREVIEW_BYTES (64 KiB) by default', () => {
    expect(DEFAULT_DATA_PREVIEW_BYTES).toBe(65536);
    const big = new Uint8Array(70_000).fill(0x61);
    const r = encodeZnodeData(big);
    expect(r.truncated).toBe(true);
    expect(r.size).toBe(70_000);
    expect(r.value).toBe('a'.repeat(65536));
    expect(encodeZnodeData(new Uint8Array(65536).fill(0x61)).truncated).toBe(false);
  });

  it('still calls text text when truncation cuts a 2-byte character', () => {
    const b = utf8('héllo'); // h c3 a9 l l o
    expect(encodeZnodeData(b, 2)).toEqual({ encoding: 'utf8', value: 'h', size: 6, truncated: true });
  });

  it('still calls text text when truncation cuts a 3- or 4-byte character at any byte', () => {
    const euro = utf8('ab€cd'); // a b e2 82 ac c d
    expect(encodeZnodeData(euro, 3)).toMatchObject({ encoding: 'utf8', value: 'ab', truncated: true, size: 7 });
    expect(encodeZnodeData(euro, 4)).toMatchObject({ encoding: 'utf8', value: 'ab', truncated: true });
    expect(encodeZnodeData(euro, 5)).toMatchObject({ encoding: 'utf8', value: 'ab€', truncated: true });
    const emoji = utf8('ab\u{1F600}c'); // a b f0 9f 98 80 c
    for (const limit of [3, 4, 5]) {
      expect(encodeZnodeData(emoji, limit)).toMatchObject({ encoding: 'utf8', value: 'ab', truncated: true, size: 7 });
    }
    expect(encodeZnodeData(emoji, 6)).toMatchObject({ encoding: 'utf8', value: 'ab\u{1F600}', truncated: true });
  });

  it('a cut multi-byte character in a large text at the default limit is still text', () => {
    const s = 'x'.repeat(DEFAULT_DATA_PREVIEW_BYTES - 1) + '€€€';
    const r = encodeZnodeData(utf8(s));
    expect(r).toMatchObject({ encoding: 'utf8', truncated: true, size: utf8(s).length });
    expect(r.value).toBe('x'.repeat(DEFAULT_DATA_PREVIEW_BYTES - 1));
  });

  it('control characters in the shown part make a truncated value binary', () => {
    const b = new Uint8Array([...utf8('ab'), 0x00, ...utf8('cdef')]);
    expect(encodeZnodeData(b, 4)).toMatchObject({ encoding: 'base64', value: referenceBase64(b.subarray(0, 4)), size: 7, truncated: true });
  });

  it('control characters after the limit do not matter', () => {
    const b = new Uint8Array([...utf8('abcd'), 0x00, 0x01]);
    expect(encodeZnodeData(b, 4)).toEqual({ encoding: 'utf8', value: 'abcd', size: 6, truncated: true });
  });
});

describe('encodeZnodeData: properties over random values', () => {
  it('the sent value always decodes back to a prefix of the original bytes', () => {
    const random = seeded(1234);
    for (let n = 0; n < 500; n++) {
      const text = random() < 0.5;
      const len = Math.floor(random() * 64);
      const b = text ? utf8('aé€\u{1F600}{}[]"\n'.repeat(8)).subarray(0, len) : randomBytes(len, random);
      const limit = Math.floor(random() * 70);
      const r = encodeZnodeData(b, limit);
      expect(r.size).toBe(b.length);
      expect(r.truncated).toBe(b.length > limit);
      const sent = r.encoding === 'base64' ? fromBase64(r.value) : utf8(r.value);
      expect(sent.length).toBeLessThanOrEqual(Math.min(limit, b.length));
      expect(Array.from(sent)).toEqual(Array.from(b.subarray(0, sent.length)));
      if (r.encoding === 'base64') expect(sent.length).toBe(Math.min(limit, b.length));
      // At most the bytes of one cut character (1-3) may be held back.
      else expect(sent.length).toBeGreaterThanOrEqual(Math.min(limit, b.length) - 3);
    }
  });
});

describe('toBase64 / fromBase64', () => {
  it('matches RFC 4648 for small inputs', () => {
    expect(toBase64(new Uint8Array(0))).toBe('');
    expect(toBase64(utf8('f'))).toBe('Zg==');
    expect(toBase64(utf8('fo'))).toBe('Zm8=');
    expect(toBase64(utf8('foo'))).toBe('Zm9v');
    expect(toBase64(bytes(0xff, 0xfe, 0x00))).toBe('//4A');
    expect(fromBase64('')).toEqual(new Uint8Array(0));
    expect(fromBase64('//4A')).toEqual(bytes(0xff, 0xfe, 0x00));
  });

  it('round-trips every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(toBase64(all)).toBe(referenceBase64(all));
    expect(fromBase64(toBase64(all))).toEqual(all);
  });

  it('round-trips around and beyond the 32 KiB chunk size, up to 1 MB', () => {
    const random = seeded(42);
    for (const n of [0x7fff, 0x8000, 0x8001, 0x10000, 0x10001, 100_003, 1024 * 1024]) {
      const b = randomBytes(n, random);
      const encoded = toBase64(b);
      expect(encoded).toBe(referenceBase64(b));
      const back = fromBase64(encoded);
      expect(back.length).toBe(n);
      let firstDifference = -1;
      for (let i = 0; i < n && firstDifference < 0; i++) if (back[i] !== b[i]) firstDifference = i;
      expect(firstDifference).toBe(-1);
    }
  });

  it('refuses input that is not base64', () => {
    expect(() => fromBase64('not base64!')).toThrow();
  });
});

describe('hexDump', () => {
  it('returns no lines for no bytes', () => {
    expect(hexDump(new Uint8Array(0))).toEqual([]);
  });

  it('formats offset, hex column padded to full width, and ASCII', () => {
    expect(hexDump(utf8('{"a":1}'))).toEqual([`00000000  ${'7b 22 61 22 3a 31 7d'.padEnd(47)}  {"a":1}`]);
  });

  it('breaks lines every 16 bytes with hex offsets', () => {
    const b = Uint8Array.from({ length: 33 }, (_, i) => 0x41 + (i % 26));
    const lines = hexDump(b);
    expect(lines).toEqual([
      '00000000  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  ABCDEFGHIJKLMNOP',
      '00000010  51 52 53 54 55 56 57 58 59 5a 41 42 43 44 45 46  QRSTUVWXYZABCDEF',
      `00000020  ${'47'.padEnd(47)}  G`,
    ]);
  });

  it('shows non-printable bytes as dots (printable is 0x20..0x7e)', () => {
    expect(hexDump(bytes(0x00, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff))).toEqual([`00000000  ${'00 1f 20 7e 7f 80 ff'.padEnd(47)}  .. ~...`]);
  });

  it('honours a custom width and keeps every hex column aligned', () => {
    const lines = hexDump(
      Uint8Array.from({ length: 20 }, (_, i) => i),
      8,
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('00000000  00 01 02 03 04 05 06 07  ........');
    expect(lines[1]).toBe('00000008  08 09 0a 0b 0c 0d 0e 0f  ........');
    expect(lines[2]).toBe(`00000010  ${'10 11 12 13'.padEnd(23)}  ....`);
    const asciiStart = new Set(lines.map((l) => l.lastIndexOf('  ') + 2));
    expect(asciiStart.size).toBe(1);
  });

  it('uses 8-digit offsets past 64 KiB', () => {
    const lines = hexDump(new Uint8Array(0x10010));
    expect(lines).toHaveLength(0x1001);
    expect(lines.at(-1)!.startsWith('00010000  ')).toBe(true);
  });
});
