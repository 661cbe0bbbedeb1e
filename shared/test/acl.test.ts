import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, checkAclId, lettersToPermissions, permissionsToLetters } from '../src/acl.js';

describe('ACL permissions: letters and bits', () => {
  it('converts every combination both ways', () => {
    for (let bits = 0; bits <= ALL_PERMISSIONS; bits++) {
      const letters = permissionsToLetters(bits);
      expect(lettersToPermissions(letters)).toEqual({ ok: true, bits });
    }
  });

  it("uses ZooKeeper's bits and zkCli's letter order", () => {
    expect(lettersToPermissions('r')).toEqual({ ok: true, bits: 1 });
    expect(lettersToPermissions('w')).toEqual({ ok: true, bits: 2 });
    expect(lettersToPermissions('c')).toEqual({ ok: true, bits: 4 });
    expect(lettersToPermissions('d')).toEqual({ ok: true, bits: 8 });
    expect(lettersToPermissions('a')).toEqual({ ok: true, bits: 16 });
    expect(permissionsToLetters(31)).toBe('cdrwa');
    expect(permissionsToLetters(3)).toBe('rw');
    expect(lettersToPermissions('AWRDC')).toEqual({ ok: true, bits: 31 });
    // Bits ZooKeeper does not define are not shown as letters.
    expect(permissionsToLetters(32 | 1)).toBe('r');
  });

  it('refuses unknown and repeated letters', () => {
    expect(lettersToPermissions('rx')).toMatchObject({ ok: false, reason: expect.stringMatching(/"x" is not a permission/) });
    expect(lettersToPermissions('rr')).toMatchObject({ ok: false, reason: expect.stringMatching(/twice/) });
    expect(lettersToPermissions('')).toEqual({ ok: true, bits: 0 });
  });
});

describe('ACL ids', () => {
  it.each([
    ['world', 'anyone', true],
    ['world', 'someone', false],
    ['digest', 'bob:NVDzh6nSfMqQK0hUvLAZhbOMslk=', true],
    ['digest', 'bob:password', false],
    ['ip', '10.0.0.1', true],
    ['ip', '10.0.0.0/8', true],
    ['ip', '10.0.0.0/33', false],
    ['ip', '300.0.0.1', false],
    ['ip', 'fe80::1/64', true],
    ['ip', 'host.example', false],
    ['auth', '', true],
    ['sasl', 'keeper', true],
    ['sasl', 'keeper@KEEPER.TEST', true],
    ['sasl', '', false],
    ['sasl', 'two words', false],
    ['x509', 'CN=keeper,O=Example', true],
    ['x509', 'keeper', false],
  ] as const)('%s %s -> %s', (scheme, id, valid) => {
    expect(checkAclId(scheme, id) === null).toBe(valid);
  });
});
