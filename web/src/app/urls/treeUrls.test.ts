import { describe, expect, it } from 'vitest';
import { parseZnodeLocation, znodeUrl } from './treeUrls';

describe('znode urls', () => {
  it('round-trips awkward names', () => {
    for (const path of ['/', '/a', '/a/b c', '/x/100%', '/q?x=1#frag', '/ünï/çödé', '/lock-0000000001']) {
      const url = znodeUrl('prod eu', path);
      expect(parseZnodeLocation(url)).toEqual({ ensemble: 'prod eu', path });
    }
  });
  it('treats a trailing slash and no slash as the root', () => {
    expect(parseZnodeLocation('/ensembles/a/znodes')).toEqual({ ensemble: 'a', path: '/' });
    expect(parseZnodeLocation('/ensembles/a/znodes/')).toEqual({ ensemble: 'a', path: '/' });
    expect(parseZnodeLocation('/ensembles/a/znodes/x/')).toEqual({ ensemble: 'a', path: '/x' });
  });
  it('rejects other pages', () => {
    expect(parseZnodeLocation('/ensembles/a/members')).toBeNull();
  });
  it('keeps the root url readable', () => {
    expect(znodeUrl('a', '/')).toBe('/ensembles/a/znodes/');
    expect(znodeUrl('a', '/b/c')).toBe('/ensembles/a/znodes/b/c');
  });
});
