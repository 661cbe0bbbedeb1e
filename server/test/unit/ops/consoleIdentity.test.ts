/** Who the console is to ACL checks: its digest ids, and what whoAmI reported (sasl, x509, the address seen). */
import { describe, expect, it } from 'vitest';
import { consoleIdentityOf } from '../../../src/ops/consoleIdentity.js';

describe('consoleIdentityOf', () => {
  it('guesses the address from a loopback connection string before whoAmI answered', () => {
    expect(consoleIdentityOf('127.0.0.1:2181')).toEqual({ digestIds: [], address: '127.0.0.1', authIds: [] });
    expect(consoleIdentityOf('zk1:2181')).toEqual({ digestIds: [], address: null, authIds: [] });
  });

  it('takes the sasl and x509 ids and the address the member sees from whoAmI', () => {
    const whoAmI = [
      { scheme: 'sasl', id: 'keeper' },
      { scheme: 'x509', id: 'CN=keeper' },
      { scheme: 'ip', id: '10.1.2.3' },
    ];
    expect(consoleIdentityOf('zk1:2281', [{ scheme: 'digest', credential: 'ops:pw' }], whoAmI)).toEqual({
      // base64(sha1("ops:pw")), checked with Python's hashlib
      digestIds: ['ops:bK2vrtycP3OyZ7p+aGPDYWwk0ZA='],
      address: '10.1.2.3',
      authIds: [
        { scheme: 'sasl', id: 'keeper' },
        { scheme: 'x509', id: 'CN=keeper' },
      ],
    });
  });
});
