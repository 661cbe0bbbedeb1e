import { describe, expect, it } from 'vitest';
import { completed, completionSource, goToTarget, matchCompletions, typedPath } from './goToModel';

describe('typedPath', () => {
  it('takes a path as typed, adds the leading slash, and reads a pasted Keeper URL', () => {
    expect(typedPath('  /app/billing ')).toBe('/app/billing');
    expect(typedPath('app/billing')).toBe('/app/billing');
    expect(typedPath('')).toBe('/');
    expect(typedPath('http://keeper:8080/ensembles/prod/znodes/app/a%20b')).toBe('/app/a b');
    expect(typedPath('/ensembles/prod/znodes/')).toBe('/');
  });
});

describe('completionSource', () => {
  it('completes the last segment from its parent’s children', () => {
    expect(completionSource('/app/bi')).toEqual({ kind: 'children', parent: '/app', partial: 'bi' });
    expect(completionSource('/app/')).toEqual({ kind: 'children', parent: '/app', partial: '' });
    expect(completionSource('/')).toEqual({ kind: 'children', parent: '/', partial: '' });
    expect(completionSource('ap')).toEqual({ kind: 'children', parent: '/', partial: 'ap' });
  });

  it('lists nothing above a share link’s scope, only the way into it', () => {
    expect(completionSource('/', '/app/db')).toEqual({ kind: 'scopeRoot', root: '/app/db', leadsThere: true });
    expect(completionSource('/app/', '/app/db')).toEqual({ kind: 'scopeRoot', root: '/app/db', leadsThere: true });
    expect(completionSource('/app/se', '/app/db')).toEqual({ kind: 'scopeRoot', root: '/app/db', leadsThere: false });
    // /app/dbx is not under /app/db: its parent /app is above the scope.
    expect(completionSource('/app/dbx', '/app/db').kind).toBe('scopeRoot');
    expect(completionSource('/app/db/', '/app/db')).toEqual({ kind: 'children', parent: '/app/db', partial: '' });
    expect(completionSource('/app/db/t', '/app/db')).toEqual({ kind: 'children', parent: '/app/db', partial: 't' });
  });
});

describe('matchCompletions', () => {
  const names = ['accounts', 'billing', 'Billing-old', 'locks', 'rebill'];
  it('puts names starting with the text first, then names containing it, case-insensitively', () => {
    expect(matchCompletions('/app', names, 'bill')).toEqual({ paths: ['/app/billing', '/app/Billing-old', '/app/rebill'], total: 3 });
    expect(matchCompletions('/', names, '').total).toBe(5);
  });
  it('shows at most the limit and counts the rest', () => {
    const many = Array.from({ length: 120 }, (_, i) => `n${i}`);
    const m = matchCompletions('/x', many, 'n', 50);
    expect(m.paths).toHaveLength(50);
    expect(m.total).toBe(120);
    expect(m.paths[0]).toBe('/x/n0');
  });
});

describe('completed and goToTarget', () => {
  it('fills a completion in with a slash, so its children come next', () => {
    expect(completed('/app/billing')).toBe('/app/billing/');
    expect(completed('/')).toBe('/');
  });
  it('goes to the typed path, a trailing slash dropped', () => {
    expect(goToTarget('/app/billing/locks/x')).toEqual({ ok: true, path: '/app/billing/locks/x' });
    expect(goToTarget('/app/billing/')).toEqual({ ok: true, path: '/app/billing' });
    expect(goToTarget('/')).toEqual({ ok: true, path: '/' });
  });
  it('says why a path cannot be opened', () => {
    expect(goToTarget('/app//x')).toEqual({ ok: false, reason: 'path has an empty segment (//)' });
    expect(goToTarget('/app/../etc')).toMatchObject({ ok: false });
    expect(goToTarget('/app/secrets', '/app/db')).toEqual({ ok: false, reason: "outside this link's scope: /app/db and below" });
    expect(goToTarget('/app/db/t', '/app/db')).toEqual({ ok: true, path: '/app/db/t' });
  });
});
