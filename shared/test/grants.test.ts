import { describe, expect, it } from 'vitest';
import { describeGrant, grantSchema, mayWriteAt, mayWriteIn, rightsFromGroups, rightsOfRole, type Grant } from '../src/grants.js';

const GRANTS: Grant[] = [
  { group: 'zk-admins', role: 'admin' },
  { group: 'oncall', role: 'viewer' },
  { group: 'billing', role: 'writer', ensemble: 'prod', paths: ['/app/billing'] },
  { group: 'billing-ops', role: 'writer', ensemble: 'prod', paths: ['/app/billing/ops', '/app/invoices'] },
  { group: 'billing', role: 'writer', ensemble: 'stage', paths: ['/'] },
];

describe('rightsFromGroups', () => {
  it('gives nothing to a person in no granted group', () => {
    expect(rightsFromGroups(['marketing'], GRANTS)).toBeNull();
    expect(rightsFromGroups([], GRANTS)).toBeNull();
  });
  it('takes the strongest role and adds writers’ subtrees up per ensemble, dropping nested ones', () => {
    expect(rightsFromGroups(['oncall', 'zk-admins'], GRANTS)).toEqual({ role: 'admin', write: [], grantedBy: ['zk-admins'] });
    expect(rightsFromGroups(['oncall'], GRANTS)).toEqual({ role: 'viewer', write: [], grantedBy: ['oncall'] });
    expect(rightsFromGroups(['billing', 'billing-ops', 'staff'], GRANTS)).toEqual({
      role: 'writer',
      write: [
        { ensemble: 'prod', paths: ['/app/billing', '/app/invoices'] },
        { ensemble: 'stage', paths: ['/'] },
      ],
      grantedBy: ['billing', 'billing-ops'],
    });
  });
});

describe('mayWriteAt', () => {
  const writer = rightsFromGroups(['billing'], GRANTS)!;
  it('is segment-exact: /app/billing never grants /app/billingx', () => {
    expect(mayWriteAt(writer, 'prod', '/app/billing')).toBe(true);
    expect(mayWriteAt(writer, 'prod', '/app/billing/a/b')).toBe(true);
    expect(mayWriteAt(writer, 'prod', '/app/billingx')).toBe(false);
    expect(mayWriteAt(writer, 'prod', '/app/billingx/a')).toBe(false);
    expect(mayWriteAt(writer, 'prod', '/app')).toBe(false);
    expect(mayWriteAt(writer, 'prod', '/')).toBe(false);
  });
  it('holds per ensemble', () => {
    expect(mayWriteAt(writer, 'other', '/app/billing')).toBe(false);
    expect(mayWriteAt(writer, 'stage', '/anything')).toBe(true);
    expect(mayWriteIn(writer, 'prod')).toBe(true);
    expect(mayWriteIn(writer, 'other')).toBe(false);
  });
  it('refuses every spelling that is not a znode path', () => {
    for (const path of ['/app/billing/../payments', '/app/billing/./x', '/app/billing/', '/app//billing', 'app/billing', '']) {
      expect(mayWriteAt(writer, 'prod', path), path).toBe(false);
    }
  });
  it('lets admins write anywhere and viewers nowhere', () => {
    expect(mayWriteAt(rightsOfRole('admin'), 'any', '/x')).toBe(true);
    expect(mayWriteAt(rightsOfRole('viewer'), 'prod', '/app/billing')).toBe(false);
    expect(mayWriteAt(null, 'prod', '/app/billing')).toBe(false);
  });
});

describe('grantSchema', () => {
  it('refuses a writer without paths or with a path that is not a znode path', () => {
    expect(grantSchema.safeParse({ group: 'g', role: 'writer', ensemble: 'prod', paths: [] }).success).toBe(false);
    expect(grantSchema.safeParse({ group: 'g', role: 'writer', ensemble: 'prod', paths: ['/a/'] }).success).toBe(false);
    expect(grantSchema.safeParse({ group: 'g', role: 'writer', paths: ['/a'] }).success).toBe(false);
    expect(grantSchema.safeParse({ group: 'g', role: 'owner' }).success).toBe(false);
    expect(describeGrant(GRANTS[3]!)).toBe('billing-ops (writer of prod: /app/billing/ops, /app/invoices)');
  });
});
