import { describe, expect, it } from 'vitest';
import type { AclEntryView } from '@keeper/shared';
import { describeNeed, noAuthSentence, readersOf } from './accessModel';

describe('readersOf', () => {
  it('lists only the entries that grant READ, with how to get each', () => {
    const needs = readersOf([
      { scheme: 'digest', id: 'alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=', perms: 'rwcda', permissions: 31 },
      { scheme: 'world', id: 'anyone', perms: 'a', permissions: 16 },
      { scheme: 'ip', id: '10.0.0.0/8', perms: 'r', permissions: 1 },
    ]);
    expect(needs.map((n) => `${n.scheme}:${n.id}`)).toEqual(['digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=', 'ip:10.0.0.0/8']);
    expect(needs[0]?.how).toContain('"credential": "alice:<password>"');
    expect(needs[0]?.how).toContain('"auth" list');
    expect(needs[1]?.how).toBe('run Keeper from an address in 10.0.0.0/8');
  });

  it('says how Keeper presents a sasl or x509 identity, and what it cannot present', () => {
    expect(describeNeed({ scheme: 'sasl', id: 'billing', perms: 'r', permissions: 1 }).how).toBe(
      'authenticate Keeper as billing: "sasl" with that DIGEST-MD5 username or Kerberos principal in the ensemble’s entry of Keeper’s config file (docs/operating/secured-ensembles.md)',
    );
    expect(describeNeed({ scheme: 'x509', id: 'CN=billing', perms: 'r', permissions: 1 }).how).toMatch(
      /^present a client certificate whose subject is CN=billing: "tls"/,
    );
    expect(describeNeed({ scheme: 'ldap', id: 'ops', perms: 'r', permissions: 1 }).how).toMatch(
      /the ldap scheme \(a custom provider\) needs a client configured for it/,
    );
  });
});

describe('noAuthSentence', () => {
  const SEEN = [
    { scheme: 'ip', id: '127.0.0.1' },
    { scheme: 'sasl', id: 'keeper' },
  ];
  const billing: AclEntryView = { scheme: 'sasl', id: 'billing', perms: 'r', permissions: 1 };

  it('puts who ZooKeeper sees beside whom the ACL grants', () => {
    expect(noAuthSentence(SEEN, 'read', [billing, { scheme: 'x509', id: 'CN=billing', perms: 'rw', permissions: 3 }])).toBe(
      'ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1; this node’s ACL grants read only to sasl:billing, x509:CN=billing',
    );
    expect(noAuthSentence(SEEN, 'read', [])).toBe('ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1; this node’s ACL grants read to no one');
  });
  it('says what is known when ZooKeeper hides the ACL, and nothing before whoAmI answered', () => {
    expect(noAuthSentence(SEEN, 'read', null)).toBe('ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1, and this node’s ACL grants it no read');
    expect(noAuthSentence(null, 'read', [billing])).toBeNull();
  });
});
