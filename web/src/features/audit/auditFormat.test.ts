import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '@keeper/shared';
import { actionLabel, changeOf, entryNote, fingerprintShort, linkIdOf, matchesFilter, outcomeOf, shortenPath } from './auditFormat';

const entry: AuditEntry = {
  seq: 20,
  at: 1,
  actor: { name: 'ann', role: 'admin', via: 'cookie' },
  action: 'setData',
  outcome: 'failed',
  ensemble: 'prod',
  path: '/app/workers',
  before: { version: 3, size: 116, sha256: '015abd75cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862' },
  error: { code: 'BAD_VERSION', message: '/app/workers is at version 4, not 3' },
  details: { expectedVersion: 3 },
};

describe('audit formatting', () => {
  it('shortens fingerprints', () => {
    expect(fingerprintShort(entry.before!)).toBe('v3 · 116 B · 015abd7');
  });

  it('says what changed, with none for creates and deletes', () => {
    expect(changeOf(entry)).toEqual({ before: 'v3 · 116 B · 015abd7', after: null });
    expect(changeOf({ before: null, after: { version: 0, size: 0, sha256: 'e3b0c442' } })).toEqual({ before: null, after: 'v0 · 0 B · e3b0c44' });
    expect(changeOf({})).toBeNull();
    expect(changeOf({ before: null })).toBeNull();
  });

  it('labels actions and their phases', () => {
    expect(actionLabel(entry)).toBe('set data');
    expect(actionLabel({ action: 'deleteRecursive', details: { phase: 'end' } })).toBe('delete subtree · end');
    expect(actionLabel({ action: 'login', details: { method: 'url' } })).toBe('sign in · url');
  });

  it('notes errors first', () => {
    expect(entryNote(entry)).toBe('BAD_VERSION: /app/workers is at version 4, not 3');
    expect(entryNote({ ...entry, error: undefined, note: 'reply lost; read back: applied' })).toBe('reply lost; read back: applied');
  });
});

describe('matchesFilter', () => {
  it('needs every word, anywhere, any case', () => {
    expect(matchesFilter(entry, '')).toBe(true);
    expect(matchesFilter(entry, 'ANN workers')).toBe(true);
    expect(matchesFilter(entry, 'bad_version')).toBe(true);
    expect(matchesFilter(entry, 'set data')).toBe(true);
    expect(matchesFilter(entry, 'ann bob')).toBe(false);
  });

  it('finds share-link entries by link id', () => {
    const use: AuditEntry = { ...entry, action: 'shareLink.use', outcome: 'ok', details: { linkId: 'Lk9' } };
    expect(linkIdOf(use)).toBe('Lk9');
    expect(matchesFilter(use, 'lk9')).toBe(true);
  });
});

describe('shortenPath', () => {
  it('keeps short paths and the end of long ones', () => {
    expect(shortenPath('/app/workers', 40)).toBe('/app/workers');
    const long = '/e2e/9e7a053a61b60e2af93d-fbf890c2de2fb5005dc5-0-1795326960624/workers';
    const short = shortenPath(long, 40);
    expect(short.length).toBeLessThanOrEqual(40);
    expect(short.startsWith('/e2e/9e7a')).toBe(true);
    expect(short.endsWith('…/workers')).toBe(true);
    expect(shortenPath('/' + 'x'.repeat(60), 20)).toHaveLength(20);
  });
});

describe('job ends', () => {
  it('a cancelled job reads as cancelled, with how far it got', () => {
    const end: AuditEntry = {
      ...entry,
      action: 'deleteRecursive',
      error: undefined,
      outcome: 'failed',
      details: { phase: 'end', state: 'cancelled', done: 1234, total: 6001, remainingTotal: 4767 },
    };
    expect(outcomeOf(end)).toEqual({ word: 'cancelled', tone: 'degraded' });
    expect(entryNote(end)).toBe('stopped after 1,234 of 6,001; 4,767 remain');
    expect(outcomeOf(entry)).toEqual({ word: 'failed', tone: 'lost' });
  });
});

describe('ACL changes', () => {
  it('say what the ACL was and became', () => {
    const e: AuditEntry = {
      ...entry,
      action: 'setAcl',
      error: undefined,
      outcome: 'ok',
      details: {
        aclBefore: [{ scheme: 'world', id: 'anyone', perms: 'cdrwa' }],
        aclAfter: [
          { scheme: 'world', id: 'anyone', perms: 'r' },
          { scheme: 'ip', id: '10.0.0.0/8', perms: 'rw' },
        ],
      },
    };
    expect(entryNote(e)).toBe('ACL world:anyone cdrwa → world:anyone r, ip:10.0.0.0/8 rw');
  });
});
