import { describe, expect, it } from 'vitest';
import { decodeUrlSegment, pathFromSegments, pathFromUrlSegment, pathToUrlSegment } from '../src/urlPaths.js';
import { pick, randomString, seeded } from './support/random.js';

describe('pathToUrlSegment', () => {
  it('keeps slashes readable and encodes each segment', () => {
    expect(pathToUrlSegment('/')).toBe('/');
    expect(pathToUrlSegment('/a/b')).toBe('/a/b');
    expect(pathToUrlSegment('/a b/c')).toBe('/a%20b/c');
    expect(pathToUrlSegment('/q?x=1#f')).toBe('/q%3Fx%3D1%23f');
    expect(pathToUrlSegment('/100%/é')).toBe('/100%25/%C3%A9');
    expect(pathToUrlSegment('/a:b@c')).toBe('/a%3Ab%40c');
  });

  it('round-trips through decodeURIComponent per segment', () => {
    for (const p of ['/a b/c?d', '/%2F/x', '/ünï/cödé/#', "/it's/(fine)"]) {
      const decoded = pathToUrlSegment(p).split('/').map(decodeURIComponent).join('/');
      expect(decoded).toBe(p);
    }
  });

  it('never lets a segment break out of its place in the URL', () => {
    const url = pathToUrlSegment('/a?b#c/d');
    expect(url).not.toMatch(/[?#]/);
    expect(url.split('/')).toHaveLength(3);
  });
});

describe('pathFromSegments (a wildcard Express has decoded)', () => {
  it('joins the segments under the root; none is the root', () => {
    expect(pathFromSegments([])).toBe('/');
    expect(pathFromSegments(['a'])).toBe('/a');
    expect(pathFromSegments(['a', 'b c', 'x/y'])).toBe('/a/b c/x/y');
    // A trailing slash is Express's empty last segment: kept, so the route's checkPath refuses it.
    expect(pathFromSegments(['a', ''])).toBe('/a/');
  });
});

describe('pathFromUrlSegment (a still-encoded URL tail)', () => {
  it('reads the root from nothing or a lone slash', () => {
    expect(pathFromUrlSegment('')).toBe('/');
    expect(pathFromUrlSegment('/')).toBe('/');
  });

  it('decodes each segment on its own, so an encoded slash stays inside its name', () => {
    expect(pathFromUrlSegment('/app/my%20db/x%2Fy')).toBe('/app/my db/x/y');
    expect(pathFromUrlSegment('/a%2Fb')).toBe('/a/b');
    expect(pathFromUrlSegment('/100%25/%C3%A9')).toBe('/100%/é');
    expect(pathFromUrlSegment('a/b')).toBe('/a/b');
  });

  it('keeps a trailing slash for the caller to judge', () => {
    expect(pathFromUrlSegment('/a/')).toBe('/a/');
  });

  it('refuses a malformed segment unless told to keep it as typed', () => {
    expect(pathFromUrlSegment('/x/100%')).toBeNull();
    expect(pathFromUrlSegment('/%E0%A4%A/b', 'refuse')).toBeNull();
    expect(pathFromUrlSegment('/x/100%', 'keep')).toBe('/x/100%');
    expect(pathFromUrlSegment('/a%20b/%zz', 'keep')).toBe('/a b/%zz');
  });

  it('round-trips every path pathToUrlSegment encodes', () => {
    const random = seeded(11);
    const alphabet = 'ab%/?#& :é€\u00a0+=.-_';
    for (let i = 0; i < 500; i++) {
      const names = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomString(random, alphabet.replace('/', ''), 6) || pick(random, ['x', '0']));
      const path = pathFromSegments(names);
      expect(pathFromUrlSegment(pathToUrlSegment(path))).toBe(path);
      expect(pathFromUrlSegment(pathToUrlSegment(path), 'keep')).toBe(path);
    }
  });
});

describe('decodeUrlSegment', () => {
  it('decodes, or answers null for what is not percent-encoding', () => {
    expect(decodeUrlSegment('prod%20eu')).toBe('prod eu');
    expect(decodeUrlSegment('a%2Fb')).toBe('a/b');
    expect(decodeUrlSegment('%')).toBeNull();
    expect(decodeUrlSegment('%E0%A4%A')).toBeNull();
  });
});
