import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ShareScope } from '@keeper/shared';
import { SHARE_LINKS_FILE, ShareLinkStore } from '../../src/auth/shareLinks.js';
import { sha256Hex } from '../../src/auth/secrets.js';
import { shareRouteVerdict } from '../../src/http/shareScopeGuard.js';

const scope: ShareScope = { ensemble: 'local', root: '/s/a', ensembleViews: false };
const ok = (s: ShareScope, path: string) => shareRouteVerdict(s, path).ok;

describe('shareRouteVerdict', () => {
  it('lets the subtree through on every znode route', () => {
    for (const kind of ['znodes', 'stat', 'acl', 'subtree', 'export']) {
      expect(ok(scope, `/ensembles/local/${kind}/s/a`), kind).toBe(true);
      expect(ok(scope, `/ensembles/local/${kind}/s/a/x`), kind).toBe(true);
      expect(ok(scope, `/ensembles/local/${kind}/s/a/x%20y`), kind).toBe(true);
    }
  });

  it('refuses what is above, beside or merely prefixed, however it is spelled', () => {
    for (const path of ['/s', '/s/ab', '/s/b', '/', '/s/a/../b', '/s/a/..%2Fb', '/s/a%2F..%2F..%2Fb']) {
      expect(ok(scope, `/ensembles/local/znodes${path === '/' ? '' : path}`), path).toBe(false);
    }
    expect(ok(scope, '/ensembles/local/export/s')).toBe(false);
    expect(ok(scope, '/ensembles/local/subtree')).toBe(false);
    expect(ok(scope, '/ensembles/local/znodes/s/a/%E0%A4%A')).toBe(false);
  });

  it('refuses other ensembles, the ensemble views, jobs and unknown routes', () => {
    expect(ok(scope, '/ensembles/other/znodes/s/a')).toBe(false);
    expect(ok(scope, '/ensembles/other')).toBe(false);
    for (const view of ['members', 'sessions', 'watches', 'sizing', 'MEMBERS']) expect(ok(scope, `/ensembles/local/${view}`), view).toBe(false);
    expect(ok(scope, '/jobs')).toBe(false);
    expect(ok(scope, '/jobs/1')).toBe(false);
    expect(ok(scope, '/ensembles/local/something-new/s/a')).toBe(false);
    expect(shareRouteVerdict(scope, '/ensembles/local/sessions')).toEqual({ ok: false, message: expect.stringContaining('/s/a and below') });
  });

  it('allows signing out, the list of ensembles, its ensemble, and the views when the link does', () => {
    for (const path of ['/me', '/logout', '/ensembles', '/ensembles/local']) expect(ok(scope, path), path).toBe(true);
    const views = { ...scope, ensembleViews: true };
    for (const view of ['members', 'sessions', 'watches', 'sizing']) expect(ok(views, `/ensembles/local/${view}`), view).toBe(true);
    expect(ok(views, '/ensembles/local/znodes/s/b')).toBe(false);
  });
});

describe('shareRouteVerdict: the Locks and Upgrades views', () => {
  const withViews: ShareScope = { ...scope, ensembleViews: true };
  it('reads upgrades and resizes like the other ensemble views, HEAD like GET, and leaves writes to the role check', () => {
    for (const path of [
      '/ensembles/local/upgrades',
      '/ensembles/local/upgrades/00000000-0000-0000-0000-000000000000',
      '/ensembles/local/reconfig',
      '/ensembles/local/reconfig/00000000-0000-0000-0000-000000000000',
    ]) {
      for (const method of ['GET', 'HEAD']) {
        expect(shareRouteVerdict(scope, path, method).ok, `${method} ${path}`).toBe(false);
        expect(shareRouteVerdict(withViews, path, method).ok, `${method} ${path}`).toBe(true);
      }
      // A POST reaches adminOnly, which refuses every holder and audits it.
      expect(shareRouteVerdict(scope, path, 'POST').ok).toBe(true);
    }
    expect(shareRouteVerdict(scope, '/ensembles/local/upgrades', 'GET')).toEqual({ ok: false, message: expect.stringContaining('the upgrades view') });
    expect(shareRouteVerdict(scope, '/ensembles/local/reconfig', 'GET')).toEqual({ ok: false, message: expect.stringContaining('the resize view') });
  });

  it('judges HEAD of the locks list like GET: its size is not told to a subtree link', () => {
    expect(shareRouteVerdict(scope, '/ensembles/local/locks', 'HEAD').ok).toBe(false);
    expect(shareRouteVerdict(withViews, '/ensembles/local/locks', 'HEAD').ok).toBe(true);
    expect(shareRouteVerdict(scope, '/ensembles/local/locks/s/a/job', 'HEAD').ok).toBe(true);
    expect(shareRouteVerdict(scope, '/ensembles/local/locks/s/b/job', 'HEAD').ok).toBe(false);
  });
});

describe('ShareLinkStore scopes', () => {
  it('stores the scope with the link and keeps links stored without one working, narrowed to their own page', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keeper-share-scope-'));
    const legacyToken = 'legacy-token-'.padEnd(40, 'x');
    const at = Date.now();
    const legacy = {
      id: 'old1',
      tokenHash: sha256Hex(legacyToken),
      path: '/ensembles/local/znodes/app/db',
      createdBy: 'ann',
      createdAt: at,
      expiresAt: at + 3_600_000,
    };
    const legacyMembers = { ...legacy, id: 'old2', tokenHash: sha256Hex('other'), path: '/ensembles/local/members' };
    writeFileSync(join(dir, SHARE_LINKS_FILE), JSON.stringify({ version: 1, links: [legacy, legacyMembers] }), { mode: 0o600 });

    const store = new ShareLinkStore(dir);
    expect(store.resolve(legacyToken)).toMatchObject({ ok: true, link: { id: 'old1', scope: { ensemble: 'local', root: '/app/db', ensembleViews: false } } });
    expect(store.scopeOf('old2')).toEqual({ ensemble: 'local', root: '/', ensembleViews: true });

    const made = store.create({
      path: '/ensembles/local/znodes/s/a/x',
      scope: { ensemble: 'local', root: '/s/a', ensembleViews: true },
      expiresInMinutes: 5,
      createdBy: 'ann',
    });
    expect(made.link.scope).toEqual({ ensemble: 'local', root: '/s/a', ensembleViews: true });
    const reopened = new ShareLinkStore(dir);
    expect(reopened.scopeOf(made.link.id)).toEqual({ ensemble: 'local', root: '/s/a', ensembleViews: true });
    // A legacy link stays without a stored scope (the file is not rewritten into a wider one).
    const file = JSON.parse(readFileSync(join(dir, SHARE_LINKS_FILE), 'utf8')) as { links: { id: string; scope?: unknown }[] };
    expect(file.links.find((l) => l.id === 'old1')?.scope).toBeUndefined();
    reopened.revoke(made.link.id);
    expect(reopened.scopeOf(made.link.id)).toBeNull();
  });
});
