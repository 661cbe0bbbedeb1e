import { describe, expect, it } from 'vitest';
import { holderBanner, holderMayOpen, isAdminOnlyPage, linkState, scopeOptions, sharablePath, sortLinks } from './shareLinks';

const H = 3_600_000;

describe('sharablePath', () => {
  it('keeps the page and its query, never a sign-in token', () => {
    expect(sharablePath('/ensembles/prod/znodes/app', '')).toBe('/ensembles/prod/znodes/app');
    expect(sharablePath('/ensembles/prod/sessions', '?token=secret&flagged=1')).toBe('/ensembles/prod/sessions?flagged=1');
  });
  it('knows which pages only admins can see', () => {
    expect(isAdminOnlyPage('/audit')).toBe(true);
    expect(isAdminOnlyPage('/audit/share-links')).toBe(true);
    expect(isAdminOnlyPage('/auditor')).toBe(false);
    expect(isAdminOnlyPage('/ensembles/x/znodes/audit')).toBe(false);
  });
});

describe('linkState', () => {
  it('words and tones for each state', () => {
    expect(linkState({ createdAt: 0, expiresAt: 10 * H }, 0)).toEqual({ word: 'active', tone: 'live' });
    expect(linkState({ createdAt: 0, expiresAt: H }, 0)).toEqual({ word: 'active', tone: 'live' });
    expect(linkState({ createdAt: 0, expiresAt: H }, 0.95 * H)).toEqual({ word: 'ending soon', tone: 'degraded' });
    expect(linkState({ createdAt: 0, expiresAt: 168 * H }, 166 * H)).toEqual({ word: 'active', tone: 'live' });
    expect(linkState({ createdAt: 0, expiresAt: 168 * H }, 167.5 * H)).toEqual({ word: 'ending soon', tone: 'degraded' });
    expect(linkState({ createdAt: 0, expiresAt: H }, 2 * H)).toEqual({ word: 'expired', tone: 'stale' });
    expect(linkState({ createdAt: 0, expiresAt: 10 * H, revokedAt: 1 }, 2)).toEqual({ word: 'revoked', tone: 'stale' });
  });
});

describe('sortLinks', () => {
  it('puts active links first, soonest to end first, then ended ones newest first', () => {
    const base = { path: '/', createdBy: 'a', createdAt: 0, scope: { ensemble: 'e', root: '/', ensembleViews: false } };
    const links = [
      { ...base, id: 'old-expired', expiresAt: 1 * H },
      { ...base, id: 'late', expiresAt: 20 * H },
      { ...base, id: 'revoked', expiresAt: 30 * H, revokedAt: 4 * H },
      { ...base, id: 'soon', expiresAt: 6 * H },
    ];
    expect(sortLinks(links, 5 * H).map((l) => l.id)).toEqual(['soon', 'late', 'revoked', 'old-expired']);
  });
});

describe('scope choices and the holder side', () => {
  it('offers the znode itself first, then each ancestor; an ensemble view needs the views', () => {
    expect(scopeOptions('/ensembles/prod/znodes/app/db/database.json')).toEqual({
      ensemble: 'prod',
      roots: ['/app/db/database.json', '/app/db', '/app', '/'],
      viewsRequired: false,
    });
    expect(scopeOptions('/ensembles/prod/sessions?flagged=1')).toEqual({ ensemble: 'prod', roots: ['/'], viewsRequired: true });
    expect(scopeOptions('/audit')).toBeNull();
  });

  it('says the scope calmly and hides the views the link does not allow', () => {
    const scope = { ensemble: 'prod', root: '/app/db', ensembleViews: false };
    expect(holderBanner(scope)).toBe('Shared view: /app/db and below, read-only');
    expect(holderBanner({ ...scope, root: '/', ensembleViews: true })).toBe('Shared view: all of prod, with members, sessions and watches, read-only');
    expect(['tree', 'ensemble', 'sessions', 'watches', 'audit'].filter((id) => holderMayOpen(scope, id))).toEqual(['tree']);
    expect(['tree', 'ensemble', 'sessions', 'watches', 'audit'].filter((id) => holderMayOpen({ ...scope, ensembleViews: true }, id))).toEqual([
      'tree',
      'ensemble',
      'sessions',
      'watches',
    ]);
  });
});
