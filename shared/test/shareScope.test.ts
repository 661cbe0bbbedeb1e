import { describe, expect, it } from 'vitest';
import { describeScope, legacyScope, parseConsolePage, pathWithin, scopeForNewLink } from '../src/shareScope.js';

describe('pathWithin', () => {
  it('holds the root itself and what is below it', () => {
    expect(pathWithin('/app/db', '/app/db')).toBe(true);
    expect(pathWithin('/app/db', '/app/db/x')).toBe(true);
    expect(pathWithin('/app/db', '/app/db/x/y z')).toBe(true);
    expect(pathWithin('/', '/anything/at/all')).toBe(true);
    expect(pathWithin('/', '/')).toBe(true);
  });

  it('stops at exact segment boundaries', () => {
    expect(pathWithin('/app/db', '/app/dbx')).toBe(false);
    expect(pathWithin('/app/db', '/app/db-old/x')).toBe(false);
    expect(pathWithin('/app/db', '/app')).toBe(false);
    expect(pathWithin('/app/db', '/')).toBe(false);
    expect(pathWithin('/s/a', '/s/b')).toBe(false);
    expect(pathWithin('/s/a', '/s/ab')).toBe(false);
  });

  it('never lets a spelling of a path step out of the subtree', () => {
    expect(pathWithin('/app/db', '/app/db/../secret')).toBe(false);
    expect(pathWithin('/app/db', '/app/db/./x')).toBe(false);
    expect(pathWithin('/app/db', '/app/db//x')).toBe(false);
    expect(pathWithin('/app/db', '/app/db/')).toBe(false);
    expect(pathWithin('/app/db', 'app/db/x')).toBe(false);
    expect(pathWithin('/app/db', '')).toBe(false);
    // An invalid root holds nothing, not everything.
    expect(pathWithin('', '/app')).toBe(false);
    expect(pathWithin('/app/', '/app/x')).toBe(false);
  });
});

describe('parseConsolePage', () => {
  it('reads ensemble and znode from a tree page, decoding each segment', () => {
    expect(parseConsolePage('/ensembles/local/znodes/app/my%20db/x%2Fy')).toEqual({ ensemble: 'local', view: 'znodes', znodePath: '/app/my db/x/y' });
    expect(parseConsolePage('/ensembles/local/znodes/')).toEqual({ ensemble: 'local', view: 'znodes', znodePath: '/' });
    expect(parseConsolePage('/ensembles/a%20b/members?x=1')).toEqual({ ensemble: 'a b', view: 'members', znodePath: null });
    // A lock's page opens its directory, like a tree page; the Locks list is an ensemble view.
    expect(parseConsolePage('/ensembles/local/locks/app/locks/job')).toEqual({ ensemble: 'local', view: 'locks', znodePath: '/app/locks/job' });
    expect(parseConsolePage('/ensembles/local/locks')).toEqual({ ensemble: 'local', view: 'locks', znodePath: null });
    expect(parseConsolePage('/ensembles/local/locks/')).toEqual({ ensemble: 'local', view: 'locks', znodePath: null });
    expect(parseConsolePage('/audit')).toBeNull();
    expect(parseConsolePage('/')).toBeNull();
    expect(parseConsolePage('/ensembles/%E0%A4%A/znodes/x')).toBeNull();
  });
});

describe('scopeForNewLink', () => {
  const page = '/ensembles/local/znodes/app/db/database.json';

  it('defaults to the opened znode and its subtree, without the ensemble views', () => {
    expect(scopeForNewLink(page)).toEqual({ ok: true, scope: { ensemble: 'local', root: '/app/db/database.json', ensembleViews: false } });
  });

  it('accepts an ancestor of the opened znode, and the ensemble views when asked', () => {
    expect(scopeForNewLink(page, { root: '/app', ensembleViews: true })).toEqual({ ok: true, scope: { ensemble: 'local', root: '/app', ensembleViews: true } });
    expect(scopeForNewLink(page, { root: '/' })).toMatchObject({ ok: true, scope: { root: '/' } });
  });

  it('refuses a root that is not an ancestor (a sibling, a prefix that is no segment)', () => {
    expect(scopeForNewLink(page, { root: '/app/d' })).toMatchObject({ ok: false });
    expect(scopeForNewLink(page, { root: '/other' })).toMatchObject({ ok: false });
    expect(scopeForNewLink(page, { root: '/app/db/database.json/below' })).toMatchObject({ ok: false });
  });

  it('turns the ensemble views on for a link to an ensemble view, and refuses links to no ensemble', () => {
    expect(scopeForNewLink('/ensembles/local/members')).toEqual({ ok: true, scope: { ensemble: 'local', root: '/', ensembleViews: true } });
    expect(scopeForNewLink('/ensembles/local/sessions', { ensembleViews: false })).toMatchObject({ ok: false });
    expect(scopeForNewLink('/audit')).toMatchObject({ ok: false });
  });
});

describe('legacyScope (links stored before scopes)', () => {
  it('gives a tree link its own subtree only, an ensemble-view link its ensemble, anything else nothing', () => {
    expect(legacyScope('/ensembles/local/znodes/app/db')).toEqual({ ensemble: 'local', root: '/app/db', ensembleViews: false });
    expect(legacyScope('/ensembles/local/members')).toEqual({ ensemble: 'local', root: '/', ensembleViews: true });
    const nothing = legacyScope('/');
    expect(nothing.ensemble).toBe('');
  });
});

describe('describeScope', () => {
  it('says what the holder sees', () => {
    expect(describeScope({ ensemble: 'local', root: '/app/db', ensembleViews: false })).toBe('/app/db and below of local, read-only');
    expect(describeScope({ ensemble: 'local', root: '/', ensembleViews: true })).toBe('the whole tree of local, plus members, sessions and watches, read-only');
  });
});
