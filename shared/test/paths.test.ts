import { describe, expect, it } from 'vitest';
import { baseName, checkPath, isValidPath, joinPath, parentPath, pathLineage } from '../src/paths.js';

function reason(path: string): string {
  const r = checkPath(path);
  if (r.ok) throw new Error(`expected ${JSON.stringify(path)} to be refused`);
  return r.reason;
}

function hex(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

describe('checkPath: structure (PathUtils.validatePath)', () => {
  it('accepts the root and ordinary paths, returning the path unchanged', () => {
    for (const p of ['/', '/a', '/a/b', '/zookeeper/quota', '/with space/x', '/ünïcödé', '/a-b_c.d:e@f', '/lock-0000000001']) {
      expect(checkPath(p)).toEqual({ ok: true, path: p });
      expect(isValidPath(p)).toBe(true);
    }
  });

  it('refuses the empty path', () => {
    expect(reason('')).toMatch(/empty/);
    expect(isValidPath('')).toBe(false);
  });

  it('refuses a path without a leading slash', () => {
    for (const p of ['a', 'a/b', ' /a', '.', '..', 'zookeeper']) {
      expect(reason(p)).toMatch(/start with \//);
    }
  });

  it('refuses a trailing slash (but not the root)', () => {
    for (const p of ['/a/', '/a/b/', '//']) expect(reason(p)).toMatch(/end with \//);
    expect(checkPath('/').ok).toBe(true);
  });

  it('refuses empty segments (//)', () => {
    for (const p of ['//a', '/a//b', '/a/b//c', '///a']) expect(reason(p)).toMatch(/empty segment/);
  });

  it('refuses "." and ".." segments anywhere', () => {
    for (const p of ['/.', '/..', '/a/.', '/a/..', '/./a', '/../a', '/a/./b', '/a/../b']) {
      expect(reason(p)).toMatch(/relative segment/);
    }
  });

  it('accepts segments that merely contain dots', () => {
    for (const p of ['/...', '/.a', '/a.', '/..a', '/a..', '/a/.hidden', '/a/b..c', '/.../x', '/a.b/c.d']) {
      expect(checkPath(p)).toEqual({ ok: true, path: p });
    }
  });
});

describe('checkPath: forbidden characters', () => {
  // ZooKeeper 3.8 PathUtils.validatePath refuses, besides \u0000:
  //   c > '\u0000' && c <= '\u001f' || c >= '\u007f' && c <= '\u009F'
  //   || c >= '\ud800' && c <= '\uf8ff' || c >= '\ufff0' && c <= '\uffff'
  // (verified against /usr/share/java/zookeeper-3.8.0.jar: \u001f, \u007f, \u009f,
  // \ud800, \uf8ff, \ufff0 and \uffff are all refused).
  const insideRanges = [0x00, 0x01, 0x02, 0x0a, 0x1e, 0x80, 0x85, 0x9e, 0xd801, 0xe000, 0xf8fe, 0xfff1, 0xfffe];
  const allowedNeighbours = [0x20, 0x21, 0x7e, 0xa0, 0xa1, 0xd7ff, 0xf900, 0xffef];
  const inclusiveBoundaries = [0x1f, 0x7f, 0x9f, 0xd800, 0xf8ff, 0xfff0, 0xffff];

  it.each(insideRanges.map((c): [string, number] => [hex(c), c]))('refuses %s inside a segment and reports its index', (_label, code) => {
    const path = `/ok/a${String.fromCharCode(code)}b`;
    expect(reason(path)).toBe(`invalid character ${hex(code)} at index 5`);
  });

  it.each(allowedNeighbours.map((c): [string, number] => [hex(c), c]))('accepts %s, just outside a forbidden range', (_label, code) => {
    const path = `/a${String.fromCharCode(code)}b`;
    expect(checkPath(path)).toEqual({ ok: true, path });
  });

  // ZooKeeper 3.8's ranges include their limits (3.4's did not).
  it.each(inclusiveBoundaries.map((c): [string, number] => [hex(c), c]))('refuses the range boundary %s, as ZooKeeper does', (_label, code) => {
    const path = `/a${String.fromCharCode(code)}b`;
    expect(checkPath(path).ok).toBe(false);
  });

  it('refuses a character at the very end and in the first segment', () => {
    expect(reason('/\u0001')).toBe('invalid character \\u0001 at index 1');
    expect(reason('/abc/x\u0000')).toBe('invalid character \\u0000 at index 6');
  });

  it('refuses astral characters (their high surrogate is in the private/surrogate range)', () => {
    expect(checkPath('/emoji-\u{1F600}').ok).toBe(false);
  });

  it('agrees with ZooKeeper for every other BMP code unit', () => {
    // ZooKeeper's inclusive ranges; the seven boundaries are covered above.
    const zkForbidden = (c: number) =>
      c === 0 || (c > 0 && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || (c >= 0xfff0 && c <= 0xffff);
    const mismatches: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (c === 0x2f || c === 0x2e || inclusiveBoundaries.includes(c)) continue; // '/' and '.' are structural
      const ok = checkPath(`/x${String.fromCharCode(c)}`).ok;
      if (ok === zkForbidden(c)) mismatches.push(hex(c));
    }
    expect(mismatches).toEqual([]);
  });
});

describe('parentPath', () => {
  it('returns null for the root and the parent otherwise', () => {
    expect(parentPath('/')).toBeNull();
    expect(parentPath('/a')).toBe('/');
    expect(parentPath('/a/b')).toBe('/a');
    expect(parentPath('/a/b/c')).toBe('/a/b');
    expect(parentPath('/a.b/c d')).toBe('/a.b');
  });
});

describe('baseName', () => {
  it('returns the last segment, and / for the root', () => {
    expect(baseName('/')).toBe('/');
    expect(baseName('/a')).toBe('a');
    expect(baseName('/a/b')).toBe('b');
    expect(baseName('/x/lock-0000000001')).toBe('lock-0000000001');
  });
});

describe('joinPath', () => {
  it('joins under the root without doubling the slash', () => {
    expect(joinPath('/', 'a')).toBe('/a');
    expect(joinPath('/a', 'b')).toBe('/a/b');
    expect(joinPath('/a/b', 'c d')).toBe('/a/b/c d');
  });

  it('is inverted by parentPath and baseName', () => {
    for (const [parent, child] of [
      ['/', 'a'],
      ['/a', 'b'],
      ['/a/b/c', 'lock-01'],
    ] as const) {
      const joined = joinPath(parent, child);
      expect(checkPath(joined).ok).toBe(true);
      expect(parentPath(joined)).toBe(parent);
      expect(baseName(joined)).toBe(child);
    }
  });
});

describe('pathLineage', () => {
  it('lists every ancestor from the root down to the path', () => {
    expect(pathLineage('/')).toEqual(['/']);
    expect(pathLineage('/a')).toEqual(['/', '/a']);
    expect(pathLineage('/a/b')).toEqual(['/', '/a', '/a/b']);
    expect(pathLineage('/a/b/c/d')).toEqual(['/', '/a', '/a/b', '/a/b/c', '/a/b/c/d']);
  });

  it('is consistent with parentPath', () => {
    const lineage = pathLineage('/x/y/z');
    for (let i = 1; i < lineage.length; i++) expect(parentPath(lineage[i]!)).toBe(lineage[i - 1]);
  });
});
