import { describe, expect, it } from 'vitest';
import { escapeHiddenChars, escapeMark, hasHiddenChars, splitHiddenChars } from './invisibleChars';

describe('escapeHiddenChars', () => {
  it('shows a right-to-left override instead of letting it reverse the name', () => {
    expect(escapeHiddenChars('abc\u202egpj.exe')).toBe('abc\\u202Egpj.exe');
  });

  it('escapes bidi isolates and marks, zero-width and format characters', () => {
    expect(escapeHiddenChars('a\u2066b\u2069c\u200fd\u061ce')).toBe('a\\u2066b\\u2069c\\u200Fd\\u061Ce');
    expect(escapeHiddenChars('ad\u200bmin\u200d\u2060\ufeff\u00ad')).toBe('ad\\u200Bmin\\u200D\\u2060\\uFEFF\\u00AD');
  });

  it('escapes controls, line separators and blank look-alikes, but not a plain space', () => {
    expect(escapeHiddenChars('a\u0000b\tc\nd\u007f\u0085')).toBe('a\\u0000b\\u0009c\\u000Ad\\u007F\\u0085');
    expect(escapeHiddenChars('x\u2028y\u2029z')).toBe('x\\u2028y\\u2029z');
    expect(escapeHiddenChars('no\u00a0break em\u2003space\u3164')).toBe('no\\u00A0break em\\u2003space\\u3164');
  });

  it('writes characters beyond the BMP with braces (Unicode tags)', () => {
    expect(escapeHiddenChars('a\u{E0041}b')).toBe('a\\u{E0041}b');
    expect(escapeMark('\u{E007F}')).toBe('\\u{E007F}');
  });

  it('leaves ordinary names, accents, CJK and emoji alone', () => {
    for (const name of ['service-config', 'lock-0000000003', 'café', 'ノード', 'مرحبا', '🚀', '']) {
      expect(escapeHiddenChars(name)).toBe(name);
      expect(hasHiddenChars(name)).toBe(false);
    }
  });
});

describe('splitHiddenChars', () => {
  it('cuts the text into plain runs and marks, in order', () => {
    expect(splitHiddenChars('abc\u202egpj.exe')).toEqual([
      { text: 'abc', escaped: false },
      { text: '\\u202E', escaped: true },
      { text: 'gpj.exe', escaped: false },
    ]);
    expect(splitHiddenChars('\u200b\u200b')).toEqual([
      { text: '\\u200B', escaped: true },
      { text: '\\u200B', escaped: true },
    ]);
    expect(splitHiddenChars('plain')).toEqual([{ text: 'plain', escaped: false }]);
    expect(splitHiddenChars('')).toEqual([]);
  });

  it('joins back to the escaped text', () => {
    const text = 'x\u202ey\u{E0041}z\n';
    expect(
      splitHiddenChars(text)
        .map((p) => p.text)
        .join(''),
    ).toBe(escapeHiddenChars(text));
  });
});
