import { describe, expect, it } from 'vitest';
import { checkRows, lockoutReason, newRow, rowsFrom, sameAcl, togglePerm, toInput, unknownSchemes } from './aclModel';

describe('togglePerm', () => {
  it('adds and removes letters in cdrwa order', () => {
    expect(togglePerm('r', 'c')).toBe('cr');
    expect(togglePerm('cdrwa', 'w')).toBe('cdra');
    expect(togglePerm('', 'a')).toBe('a');
  });
});

describe('checkRows', () => {
  it('accepts the default open ACL', () => {
    const rows = rowsFrom([{ scheme: 'world', id: 'anyone', perms: 'cdrwa', permissions: 31 }]);
    expect(checkRows(rows)).toEqual({ rowErrors: new Map(), error: null, warnings: [] });
  });

  it('refuses bad ids, empty permissions, duplicates and an empty ACL', () => {
    const bad = { ...newRow('digest'), id: 'ann:short', perms: 'r' };
    const none = { ...newRow('world'), perms: '' };
    const a = { ...newRow('ip'), id: '10.0.0.1', perms: 'r' };
    const b = { ...newRow('ip'), id: '10.0.0.1', perms: 'w' };
    const check = checkRows([bad, none, a, b]);
    expect(check.rowErrors.get(bad.key)).toMatch(/digest id/);
    expect(check.rowErrors.get(none.key)).toMatch(/grants nothing/);
    expect(check.rowErrors.has(a.key)).toBe(false);
    expect(check.rowErrors.get(b.key)).toMatch(/listed twice/);
    expect(checkRows([]).error).toMatch(/at least one/);
  });

  it('warns before locking everyone out', () => {
    const rows = [{ ...newRow('world'), perms: 'r' }];
    expect(checkRows(rows).warnings[0]).toMatch(/nobody will be able to change this ACL/);
    const digestOnly = [{ ...newRow('digest'), id: 'ann:' + 'a'.repeat(27) + '=', perms: 'cdrwa' }];
    expect(checkRows(digestOnly).warnings.join(' ')).toMatch(/Only digest entries can read/);
  });
});

describe('rows and entries', () => {
  it('round-trips', () => {
    const acl = [{ scheme: 'world', id: 'anyone', perms: 'r', permissions: 1 }];
    const rows = rowsFrom(acl);
    expect(sameAcl(rows, acl)).toBe(true);
    expect(toInput(rows)).toEqual([{ scheme: 'world', id: 'anyone', perms: 'r' }]);
    expect(sameAcl([{ ...rows[0]!, perms: 'rw' }], acl)).toBe(false);
  });
});

describe('unknownSchemes', () => {
  it('finds schemes this editor would not round-trip', () => {
    expect(
      unknownSchemes([
        { scheme: 'custom', id: 'ann', perms: 'r', permissions: 1 },
        { scheme: 'sasl', id: 'ann', perms: 'r', permissions: 1 },
        { scheme: 'x509', id: 'CN=ann', perms: 'r', permissions: 1 },
        { scheme: 'world', id: 'anyone', perms: 'r', permissions: 1 },
      ]),
    ).toEqual(['custom']);
  });
});

describe('lockoutReason', () => {
  it('keeps the why, drops what the heading and the confirm field already say', () => {
    const message =
      'this ACL locks the console out of /a/b: no entry grants read and admin to the console (world:anyone, no digest credentials, address 127.0.0.1): Keeper could not show it. To apply it anyway, send "confirm" equal to the path ("/a/b").';
    expect(lockoutReason(message, '/a/b')).toBe(
      'No entry grants read and admin to the console (world:anyone, no digest credentials, address 127.0.0.1): Keeper could not show it.',
    );
    expect(
      lockoutReason('this ACL may lock the console out of /a: the console may lose read. To apply it anyway, send "confirm" equal to the path ("/a").', '/a'),
    ).toBe('The console may lose read.');
    expect(lockoutReason('something else entirely', '/a')).toBe('Something else entirely');
  });
});
