import { describe, expect, it } from 'vitest';
import { MAX_ZNODE_DATA_BYTES } from '@keeper/shared';
import { checkBase64, convertFormat, countLines, initialFormat, insertIndent, isUnchanged, offsetOfLine, payloadFor, textFor } from './editorModel';

const json = { encoding: 'json' as const, value: '{"a":1}', size: 7, truncated: false };
const text = { encoding: 'utf8' as const, value: 'héllo', size: 6, truncated: false };
const binary = { encoding: 'base64' as const, value: 'AP8Q', size: 3, truncated: false };

describe('formats', () => {
  it('opens each kind of value in its own format', () => {
    expect(initialFormat(json)).toBe('json');
    expect(initialFormat(text)).toBe('text');
    expect(initialFormat(binary)).toBe('base64');
  });

  it('converts text to base64 and back without losing a byte', () => {
    const b64 = convertFormat('text', 'base64', 'héllo');
    expect(b64).toEqual({ ok: true, text: 'aMOpbGxv' });
    expect(convertFormat('base64', 'text', 'aMOpbGxv')).toEqual({ ok: true, text: 'héllo' });
  });

  it('refuses to show binary as text', () => {
    expect(convertFormat('base64', 'text', 'AP8Q')).toMatchObject({ ok: false, reason: expect.stringMatching(/not UTF-8/) });
    expect(convertFormat('base64', 'json', 'A!')).toMatchObject({ ok: false, reason: expect.stringMatching(/Fix the base64/) });
  });

  it('reads values for the editor', () => {
    expect(textFor(text, 'base64')).toBe('aMOpbGxv');
    expect(textFor(binary, 'base64')).toBe('AP8Q');
    expect(textFor(json, 'json')).toBe('{"a":1}');
  });
});

describe('checkBase64', () => {
  it('accepts base64 with line breaks, refuses the rest with a reason', () => {
    expect(checkBase64('aMOp\nbGxv')).toBeNull();
    expect(checkBase64('')).toBeNull();
    expect(checkBase64('aGk')).toMatch(/groups of 4/);
    expect(checkBase64('a*==')).toMatch(/"\*" is not a base64 character/);
  });
});

describe('payloadFor', () => {
  it('sends text as utf8 and base64 compacted', () => {
    expect(payloadFor('text', 'héllo')).toEqual({ ok: true, data: 'héllo', encoding: 'utf8', bytes: 6 });
    expect(payloadFor('base64', 'AP8Q\n')).toEqual({ ok: true, data: 'AP8Q', encoding: 'base64', bytes: 3 });
  });

  it('will not save broken JSON as JSON, and says where it is broken', () => {
    expect(payloadFor('json', '{"a": }')).toMatchObject({ ok: false, reason: expect.stringMatching(/line 1, column 7/) });
    expect(payloadFor('text', '{"a": }')).toMatchObject({ ok: true });
  });

  it('refuses more than a znode holds', () => {
    expect(payloadFor('text', 'x'.repeat(MAX_ZNODE_DATA_BYTES + 1))).toMatchObject({ ok: false, reason: expect.stringMatching(/more than a znode holds/) });
  });
});

describe('isUnchanged', () => {
  it('compares bytes, whatever the format shown', () => {
    expect(isUnchanged(text, 'text', 'héllo')).toBe(true);
    expect(isUnchanged(text, 'base64', 'aMOpbGxv')).toBe(true);
    expect(isUnchanged(text, 'text', 'hello')).toBe(false);
    expect(isUnchanged({ ...text, truncated: true }, 'text', 'héllo')).toBe(false);
  });
});

describe('editing helpers', () => {
  it('counts lines, indents, and finds line starts', () => {
    expect(countLines('a\nb\nc')).toBe(3);
    expect(countLines('')).toBe(1);
    expect(insertIndent('ab', 1, 1)).toEqual({ text: 'a  b', caret: 3 });
    expect(offsetOfLine('ab\ncd\nef', 3)).toBe(6);
    expect(offsetOfLine('ab\ncd', 1)).toBe(0);
  });
});
