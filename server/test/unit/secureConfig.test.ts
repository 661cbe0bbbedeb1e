/** The config file's "tls", "sasl" and "canBeReadOnly": what is accepted, where relative files point, and the errors. */
import { describe, expect, it } from 'vitest';
import { parseFileConfig } from '../../src/config/fileConfig.js';

const ensemble = (extra: Record<string, unknown>) => ({ ensembles: [{ name: 'prod', connectionString: 'zk1:2281', ...extra }] });

describe('tls and sasl in the config file', () => {
  it('accepts TLS with a client certificate and SASL from a file, resolving files next to the config', () => {
    const config = parseFileConfig(
      ensemble({
        tls: {
          ca: 'certs/ca.pem',
          cert: 'certs/keeper.pem',
          key: '/abs/keeper.key',
          servername: 'zk.internal',
          rejectUnauthorized: true,
          adminServer: 'https',
        },
        sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', passwordFile: 'keeper.password' },
        canBeReadOnly: false,
      }),
      '/etc/keeper/keeper.json',
    );
    const e = config.ensembles[0]!;
    expect(e.tls).toEqual({
      ca: '/etc/keeper/certs/ca.pem',
      cert: '/etc/keeper/certs/keeper.pem',
      key: '/abs/keeper.key',
      servername: 'zk.internal',
      rejectUnauthorized: true,
      adminServer: 'https',
    });
    expect(e.sasl).toEqual({ mechanism: 'DIGEST-MD5', username: 'keeper', passwordFile: '/etc/keeper/keeper.password' });
    expect(e.canBeReadOnly).toBe(false);
  });

  it('takes the password from a named environment variable, and Kerberos with a keytab', () => {
    const env = parseFileConfig(ensemble({ sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', passwordEnv: 'ZK_PASSWORD' } }), '/c.json');
    expect(env.ensembles[0]!.sasl).toEqual({ mechanism: 'DIGEST-MD5', username: 'keeper', passwordEnv: 'ZK_PASSWORD' });
    const gssapi = parseFileConfig(ensemble({ sasl: { mechanism: 'GSSAPI', principal: 'keeper@EXAMPLE.COM', keytab: 'keeper.keytab' } }), '/etc/c.json');
    expect(gssapi.ensembles[0]!.sasl).toEqual({ mechanism: 'GSSAPI', principal: 'keeper@EXAMPLE.COM', keytab: '/etc/keeper.keytab' });
  });

  it.each([
    [{ tls: { cert: 'c.pem', key: 'k.pem' } }, /ensembles\[0\]\.tls\.ca/],
    [{ tls: { ca: 'ca.pem', cert: 'c.pem' } }, /"cert" and "key" go together/],
    [{ tls: { ca: 'ca.pem', verify: false } }, /ensembles\[0\]\.tls/],
    [{ sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', password: 'in-the-config' } }, /ensembles\[0\]\.sasl/],
    [{ sasl: { mechanism: 'DIGEST-MD5', username: 'keeper' } }, /exactly one of "passwordFile" or "passwordEnv"/],
    [{ sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', passwordFile: 'a', passwordEnv: 'B' } }, /exactly one of/],
    [{ sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', passwordEnv: 'not a name' } }, /environment variable name/],
    [{ sasl: { mechanism: 'PLAIN', username: 'keeper', passwordEnv: 'P' } }, /ensembles\[0\]\.sasl/],
  ])('refuses %j with the field named', (extra, message) => {
    expect(() => parseFileConfig(ensemble(extra), '/c.json')).toThrow(message);
  });
});
