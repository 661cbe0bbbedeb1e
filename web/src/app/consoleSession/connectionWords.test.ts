import { describe, expect, it } from 'vitest';
import type { ConsoleConnectionFacts } from '@keeper/shared';
import { connectionChip, identityList, seenAsSentence } from './connectionWords';

const PLAIN: ConsoleConnectionFacts = {
  identity: [{ scheme: 'ip', id: '127.0.0.1' }],
  identityNote: null,
  tls: null,
  sasl: null,
  warning: null,
  problem: null,
  readOnly: null,
};
const SECURED: ConsoleConnectionFacts = {
  ...PLAIN,
  // whoAmI's own order: the address first.
  identity: [
    { scheme: 'ip', id: '127.0.0.1' },
    { scheme: 'x509', id: 'CN=keeper' },
    { scheme: 'sasl', id: 'keeper' },
  ],
  tls: 'TLS, server certificate checked against /etc/keeper/ca.pem, client certificate presented',
  sasl: 'DIGEST-MD5 as keeper',
};
const UNVERIFIED = 'TLS without verification (rejectUnauthorized: false): any server can pose as the ensemble';

describe('the identity ZooKeeper sees', () => {
  it('is written in ACL notation, what an ACL names first (sasl, x509) before the address', () => {
    expect(identityList(SECURED.identity!)).toBe('sasl:keeper, x509:CN=keeper, ip:127.0.0.1');
    expect(seenAsSentence(SECURED)).toBe('ZooKeeper sees Keeper as sasl:keeper, x509:CN=keeper, ip:127.0.0.1');
  });
  it('says why when the member cannot tell (before 3.7), says nothing before the answer or from an older server', () => {
    expect(seenAsSentence({ ...SECURED, identity: null, identityNote: 'member 127.0.0.1:2281 has no whoAmI (ZooKeeper before 3.7)' })).toBe(
      'ZooKeeper does not say who it sees Keeper as (member 127.0.0.1:2281 has no whoAmI (ZooKeeper before 3.7))',
    );
    expect(seenAsSentence({ ...SECURED, identity: null })).toBeNull();
    expect(seenAsSentence(undefined)).toBeNull();
  });
  it('an empty answer means only world:anyone applies', () => {
    expect(seenAsSentence({ ...PLAIN, identity: [] })).toBe('ZooKeeper sees Keeper as no one but world:anyone');
  });
});

describe("the header's connection chip", () => {
  it('is absent for plain TCP without SASL', () => {
    expect(connectionChip(PLAIN)).toBeNull();
    expect(connectionChip(undefined)).toBeNull();
  });
  it('says TLS and the identities an ACL would name, and everything in its label', () => {
    const chip = connectionChip(SECURED)!;
    expect(chip.text).toBe('TLS · sasl:keeper · x509:CN=keeper');
    expect(chip.warn).toBe(false);
    expect(chip.label).toBe(
      'Connection: TLS, server certificate checked against /etc/keeper/ca.pem, client certificate presented. SASL DIGEST-MD5 as keeper. ZooKeeper sees Keeper as sasl:keeper, x509:CN=keeper, ip:127.0.0.1',
    );
  });
  it('says SASL until whoAmI has answered', () => {
    expect(connectionChip({ ...SECURED, identity: null })!.text).toBe('TLS · SASL');
    expect(connectionChip({ ...PLAIN, sasl: 'DIGEST-MD5 as keeper' })!.text).toBe('SASL');
  });
  it('warns of TLS without verification, in its words and its label', () => {
    const chip = connectionChip({ ...SECURED, tls: 'TLS, server certificate NOT checked (rejectUnauthorized: false)', warning: UNVERIFIED })!;
    expect(chip.text).toBe('TLS unverified · sasl:keeper · x509:CN=keeper');
    expect(chip.warn).toBe(true);
    expect(chip.label).toMatch(/\. Warning: TLS without verification \(rejectUnauthorized: false\): any server can pose as the ensemble$/);
  });
});
