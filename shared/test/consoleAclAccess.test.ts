import { describe, expect, it } from 'vitest';
import { consoleAccessUnder, ipBytes, ipMatches, type ConsoleIdentity } from '../src/consoleAclAccess.js';

const OPS_DIGEST = 'ops:ZG9udCB0cnVzdCB0aGlzIGhhc2gxMjM0NTY=';
const loopback: ConsoleIdentity = { digestIds: [], address: '127.0.0.1' };
const withDigest: ConsoleIdentity = { digestIds: [OPS_DIGEST], address: '127.0.0.1' };
const unknownAddress: ConsoleIdentity = { digestIds: [], address: null };
const e = (scheme: string, id: string, permissions: number) => ({ scheme, id, permissions });
const ALL = 31;
const R = 1;
const A = 16;

describe('does the console keep read and admin under an ACL?', () => {
  it('world:anyone with read and admin keeps it', () => {
    expect(consoleAccessUnder([e('world', 'anyone', ALL)], loopback)).toMatchObject({ verdict: 'keeps', missing: [] });
  });

  it('ip:10.9.9.9 alone locks a loopback console out of read and admin', () => {
    const access = consoleAccessUnder([e('ip', '10.9.9.9', ALL)], loopback);
    expect(access).toMatchObject({ verdict: 'locksOut', missing: ['read', 'admin'] });
    expect(access.reason).toMatch(/address 127\.0\.0\.1/);
    expect(access.reason).toMatch(/could still delete it/);
  });

  it('an ip entry that covers the address the members see keeps it', () => {
    expect(consoleAccessUnder([e('ip', '127.0.0.1', ALL)], loopback).verdict).toBe('keeps');
    expect(consoleAccessUnder([e('ip', '127.0.0.0/8', ALL)], loopback).verdict).toBe('keeps');
    expect(consoleAccessUnder([e('ip', '127.0.0.2/32', ALL)], loopback).verdict).toBe('locksOut');
  });

  it('a digest id the console lacks locks it out; its own keeps it', () => {
    const other = 'someone:AAAAAAAAAAAAAAAAAAAAAAAAAAA=';
    expect(consoleAccessUnder([e('digest', other, ALL)], withDigest).verdict).toBe('locksOut');
    expect(consoleAccessUnder([e('digest', OPS_DIGEST, ALL)], withDigest).verdict).toBe('keeps');
  });

  it('auth grants the console its own digest ids, and nothing without credentials', () => {
    expect(consoleAccessUnder([e('auth', '', ALL)], withDigest).verdict).toBe('keeps');
    expect(consoleAccessUnder([e('auth', '', ALL)], loopback).verdict).toBe('locksOut');
  });

  it('permissions add up across entries, and read without admin still locks out of admin', () => {
    expect(consoleAccessUnder([e('world', 'anyone', R), e('ip', '127.0.0.1', A)], loopback).verdict).toBe('keeps');
    expect(consoleAccessUnder([e('world', 'anyone', R | 2 | 4 | 8)], loopback)).toMatchObject({ verdict: 'locksOut', missing: ['admin'] });
    expect(consoleAccessUnder([e('world', 'anyone', A)], loopback)).toMatchObject({ verdict: 'locksOut', missing: ['read'] });
  });

  it('says "unknown" when only ip entries would grant it and the address is unknown', () => {
    const access = consoleAccessUnder([e('ip', '10.0.0.0/8', ALL)], unknownAddress);
    expect(access).toMatchObject({ verdict: 'unknown', missing: ['read', 'admin'] });
    expect(access.reason).toMatch(/unknown/);
    // ...but a loss no ip entry could make up for is certain.
    expect(consoleAccessUnder([e('ip', '10.0.0.0/8', R)], unknownAddress)).toMatchObject({ verdict: 'locksOut', missing: ['read', 'admin'] });
    expect(consoleAccessUnder([e('world', 'anyone', ALL), e('ip', '10.0.0.0/8', ALL)], unknownAddress).verdict).toBe('keeps');
  });

  it('sasl and x509 entries grant only the ids ZooKeeper reported for the console (whoAmI)', () => {
    expect(consoleAccessUnder([e('sasl', 'ops', ALL), e('x509', 'CN=ops', ALL)], withDigest).verdict).toBe('locksOut');
    const secured = {
      ...withDigest,
      authIds: [
        { scheme: 'sasl', id: 'keeper' },
        { scheme: 'x509', id: 'CN=keeper' },
      ],
    };
    expect(consoleAccessUnder([e('sasl', 'keeper', ALL)], secured).verdict).toBe('keeps');
    expect(consoleAccessUnder([e('x509', 'CN=keeper', R), e('sasl', 'keeper', A)], secured).verdict).toBe('keeps');
    const billing = consoleAccessUnder([e('sasl', 'billing', ALL)], secured);
    expect(billing).toMatchObject({ verdict: 'locksOut', missing: ['read', 'admin'] });
    expect(billing.reason).toContain('sasl:keeper, x509:CN=keeper');
    // The scheme matters, not only the id.
    expect(consoleAccessUnder([e('x509', 'keeper', ALL)], secured).verdict).toBe('locksOut');
    // auth grants the session's own ids, SASL ones too: no digest credentials needed.
    expect(consoleAccessUnder([e('auth', '', ALL)], { digestIds: [], address: null, authIds: [{ scheme: 'sasl', id: 'keeper' }] }).verdict).toBe('keeps');
  });
});

describe("ip matching, as ZooKeeper's IPAuthenticationProvider does it", () => {
  it('IPv4 with and without prefix lengths', () => {
    expect(ipMatches('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(ipMatches('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(ipMatches('10.1.2.3', '10.1.2.0/23')).toBe(true);
    expect(ipMatches('10.1.4.3', '10.1.2.0/23')).toBe(false);
    expect(ipMatches('10.1.2.3', '0.0.0.0/0')).toBe(true);
    expect(ipMatches('10.1.2.3', '10.1.2.3')).toBe(true);
    expect(ipMatches('10.1.2.4', '10.1.2.3')).toBe(false);
    expect(ipMatches('10.1.2.3', '10.1.2.3/33')).toBe(false);
  });

  it('IPv6, and never across families', () => {
    expect(ipBytes('::1')).toEqual([...Array<number>(15).fill(0), 1]);
    expect(ipMatches('0:0:0:0:0:0:0:1', '::1')).toBe(true);
    expect(ipMatches('fe80::1', 'fe80::/10')).toBe(true);
    expect(ipMatches('::1', '127.0.0.1')).toBe(false);
    expect(ipBytes('1::2::3')).toBeNull();
    expect(ipBytes('300.1.1.1')).toBeNull();
  });
});
