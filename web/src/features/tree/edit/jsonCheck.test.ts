import { describe, expect, it } from 'vitest';
import { checkJson, lineColumn, locateJsonError, prettyJson } from './jsonCheck';

describe('checkJson', () => {
  it('accepts valid JSON of every kind', () => {
    for (const ok of ['{}', '[]', '{"a":[1,2.5,-3e2,true,false,null,"x\\n\\u00e9"]}', ' 42 ', '"s"']) {
      expect(checkJson(ok)).toBeNull();
      expect(locateJsonError(ok)).toBeNull();
    }
  });

  it('finds a missing comma on the right line and column', () => {
    const text = '{\n  "a": 1\n  "b": 2\n}';
    expect(checkJson(text)).toMatchObject({
      line: 3,
      column: 3,
      message: 'Expected "," or "}" after a property value, found a string (is a "," missing at the end of line 2?)',
    });
  });

  it('explains trailing commas, single quotes and unterminated strings', () => {
    expect(checkJson('{"a": 1,}')?.message).toMatch(/Trailing comma/);
    expect(checkJson('[1, 2,]')?.message).toMatch(/Trailing comma/);
    expect(checkJson("{'a': 1}")?.message).toMatch(/double quotes/);
    expect(checkJson('{"a": "open')).toMatchObject({ message: expect.stringMatching(/Unterminated string/), line: 1 });
    expect(checkJson('{"a": "x\ny"}')).toMatchObject({ message: expect.stringMatching(/Line break inside a string/), line: 1, column: 9 });
  });

  it('flags what follows the value and bad numbers', () => {
    expect(checkJson('{"a":1} x')).toMatchObject({ message: expect.stringMatching(/after the end/), column: 9 });
    expect(checkJson('[01]')?.message).toMatch(/Invalid number/);
    expect(checkJson('[1.]')?.message).toMatch(/Invalid number/);
    expect(checkJson('[-]')?.message).toMatch(/Invalid number/);
  });

  it('says an empty value is not JSON', () => {
    expect(checkJson('   ')?.message).toMatch(/Empty/);
  });

  it('never overflows on deep nesting', () => {
    expect(checkJson('['.repeat(10_000))).not.toBeNull();
  });
});

describe('lineColumn', () => {
  it('counts from 1', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe('prettyJson', () => {
  it('indents by two spaces, or says it cannot', () => {
    expect(prettyJson('{"a":[1,2]}')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(prettyJson('{nope')).toBeNull();
  });
});
