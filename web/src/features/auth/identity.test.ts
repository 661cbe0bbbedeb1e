import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api';
import { accessEndedWords, canSignOut, endedSignInWords, identityLabel, loginUrl, rightsWords, safeNextPath, signInErrorMessage } from './identity';

const HOUR = 3_600_000;

describe('identityLabel', () => {
  it('names admins and viewers with their role', () => {
    expect(identityLabel({ name: 'ann', role: 'admin', via: 'cookie' }, 0)).toMatchObject({ name: 'ann', badge: 'admin', tone: 'admin' });
    expect(identityLabel({ name: 'bob', role: 'viewer', via: 'bearer' }, 0)).toMatchObject({ name: 'bob', badge: 'viewer', tone: 'viewer' });
  });

  it('says how long a share link has left', () => {
    const me = { name: 'share:abc', role: 'viewer' as const, via: 'share' as const, shareLink: { id: 'abc', path: '/x', expiresAt: 3 * HOUR + 10_000 } };
    expect(identityLabel(me, 0)).toMatchObject({ name: 'read-only link', badge: 'shared link · expires in 3 h', tone: 'share' });
    expect(identityLabel(me, 4 * HOUR).badge).toBe('shared link · expired');
  });
});

describe('canSignOut', () => {
  it('only for sessions a sign-out can end', () => {
    expect(canSignOut({ name: 'a', role: 'admin', via: 'cookie' })).toBe(true);
    expect(canSignOut({ name: 'a', role: 'viewer', via: 'share' })).toBe(true);
    expect(canSignOut({ name: 'a', role: 'admin', via: 'bearer' })).toBe(false);
    expect(canSignOut({ name: 'a', role: 'admin', via: 'open' })).toBe(false);
  });
});

describe('safeNextPath', () => {
  it('keeps pages of this console', () => {
    expect(safeNextPath('/ensembles/x/znodes/a?b=1')).toBe('/ensembles/x/znodes/a?b=1');
  });
  it('refuses other sites, nothing and the sign-in page itself', () => {
    for (const bad of [null, '', 'https://evil.example/', '//evil.example', '/\\evil', '/login', '/login?next=/x']) {
      expect(safeNextPath(bad)).toBe('/');
    }
  });
  it('builds the sign-in URL that comes back', () => {
    expect(loginUrl('/audit')).toBe('/login?next=%2Faudit');
    expect(loginUrl('/')).toBe('/login');
  });
});

describe('signInErrorMessage', () => {
  it('explains wrong credentials by method', () => {
    const e = new ApiError(401, 'INVALID_CREDENTIALS', 'wrong user name, password or token');
    expect(signInErrorMessage(e, 'password')).toBe('Wrong user name or password.');
    expect(signInErrorMessage(e, 'token')).toBe('This token is not valid for this console.');
  });
  it('says how long to wait when rate limited', () => {
    expect(signInErrorMessage(new ApiError(429, 'RATE_LIMITED', 'x', null, 42), 'password')).toBe(
      'Too many failed sign-ins from this address. Wait 42 s and try again.',
    );
    expect(signInErrorMessage(new ApiError(429, 'RATE_LIMITED', 'x'), 'token')).toMatch(/Wait a minute/);
  });
  it('passes other server messages through', () => {
    expect(signInErrorMessage(new ApiError(500, 'INTERNAL', 'disk full'), 'token')).toBe('disk full');
  });
});

describe('accessEndedWords', () => {
  const share = { name: 'share:x', role: 'viewer' as const, via: 'share' as const };
  const ann = { name: 'ann', role: 'admin' as const, via: 'cookie' as const };
  it('tells a share-link holder the link ended and offers no sign-in', () => {
    expect(accessEndedWords(share, 'share link revoked')).toMatchObject({ title: 'This read-only link was revoked', canSignIn: false });
    expect(accessEndedWords(share, 'share link expired').title).toBe('This read-only link has expired');
  });
  it('tells a signed-in person why and offers to sign in again', () => {
    expect(accessEndedWords(ann, 'signed out')).toMatchObject({ title: 'You were signed out', canSignIn: true });
    expect(accessEndedWords(ann, 'session expired').title).toBe('Your session expired');
    expect(accessEndedWords(ann, null).title).toBe('Your access ended');
  });
});

describe('endedSignInWords', () => {
  it('says why the previous sign-in ended and when', () => {
    const at = Date.UTC(2026, 10, 30, 14, 2, 31);
    const words = endedSignInWords({ reason: 'the viewer token was changed since this browser signed in', at }, at + 90_000);
    expect(words.title).toBe('Your sign-in was ended');
    expect(words.text).toBe('The viewer token was changed since this browser signed in.');
    expect(words.when).toMatch(/^1 min ago · /);
    expect(endedSignInWords({ reason: 'session expired', at }, at).title).toBe('Your session expired');
    expect(endedSignInWords({ reason: 'signed out', at }, at).title).toBe('You were signed out');
  });
});

describe('rightsWords', () => {
  it('says where a writer may change znodes, and what stays with admins', () => {
    const bob = {
      name: 'bob',
      role: 'writer' as const,
      via: 'cookie' as const,
      rights: { role: 'writer' as const, write: [{ ensemble: 'prod', paths: ['/app/billing', '/app/invoices'] }], grantedBy: ['billing'] },
    };
    expect(identityLabel(bob, 0)).toMatchObject({ badge: 'writer', tone: 'writer' });
    expect(rightsWords(bob)).toEqual({
      read: 'everything',
      change: [{ ensemble: 'prod', paths: ['/app/billing', '/app/invoices'] }],
      not: 'ACLs, lock cleanup, upgrades, share links and the audit trail are for admins',
    });
  });
  it('gives admins everything, viewers nothing to change, and a share link its scope', () => {
    expect(rightsWords({ name: 'a', role: 'admin', via: 'bearer' })).toMatchObject({ change: [{ ensemble: null }], not: null });
    expect(rightsWords({ name: 'v', role: 'viewer', via: 'cookie' })).toMatchObject({ change: [] });
    const link = {
      name: 'share:x',
      role: 'viewer' as const,
      via: 'share' as const,
      shareLink: { id: 'x', path: '/p', expiresAt: 1, scope: { ensemble: 'prod', root: '/app/db', ensembleViews: false } },
    };
    expect(rightsWords(link)).toMatchObject({ read: '/app/db and below of prod', change: [] });
  });
});
